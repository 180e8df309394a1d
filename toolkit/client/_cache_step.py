"""The response cache as one step of the one send path: ask it, send what it lacks, keep what
it may keep (the policy: `_cache_policy`; the storage: `_cache`)."""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from operator import attrgetter, itemgetter
from typing import TYPE_CHECKING, Any, cast

from .._errors import GatewayError
from ._cache import MISS, ResponseCache
from ._cache_policy import Cacheable, keeps, must_be_final, pinned_block
from ._identity import call_key
from ._ledger import Entry
from ._transport import CACHE_HIT, Receipt

if TYPE_CHECKING:
    from ..catalog import BoundCall
    from ._prepared import PreparedCall
    from ._settings import Shared

Steps = Generator[Any, Any, Any]
# What a send step is given (the positions of the calls to send; None: all of them) and gives
# back: their results, and each result's JSON text where the answer's body is it (else None;
# None for all: the cache encodes them).
SendRest = Callable[[list[int] | None], Steps]
CACHE_HIT_NOTE = "answered from the response cache"


class CacheStep:
    """One node's way through its gateway's response cache (None in the settings: a step that
    sends everything)."""

    def __init__(
        self,
        shared: Shared,
        gateway: str,
        node: str,
        finality_depth: int,
        head_for_finality: Callable[[int], Steps],
    ):
        self.shared = shared
        self.gateway = gateway
        self.node = node
        self.finality_depth = finality_depth
        self.head_for_finality = head_for_finality
        self._cacheables: dict[int, tuple[BoundCall, Cacheable | None]] = {}
        self._cacheables_cache: ResponseCache | None = None  # the cache they were worked out for

    def around(
        self, calls: Sequence[PreparedCall | None], send: SendRest, *, check_cache: bool = True
    ) -> Steps:
        """The send path of every call: the answers the cache holds (0 RU, a ledger entry
        each), `send` for the others (a None call is one outside the catalog: sent, never
        cached), and the answers it may keep kept. `check_cache=False` is for a caller that
        just asked the cache."""
        for call in calls:
            if call is not None:
                call.receipt = Receipt()
        if self.shared.cache is None:
            return (yield from send(None))[0]
        cacheables = self.cacheables([None if call is None else call.bound for call in calls])
        if check_cache:
            results, unanswered = self.from_cache(calls, cacheables)
        else:
            results, unanswered = [None] * len(calls), list(range(len(calls)))
        if not unanswered:
            return results
        whole = len(unanswered) == len(calls)  # the calls as they are: no positions to pick
        sent, texts = yield from send(None if whole else unanswered)
        for index, result in zip(unanswered, sent, strict=True):
            results[index] = result
        if cacheables.count(None) == len(cacheables):  # none of them may be kept
            return results
        answers = [
            (cacheable, cast("PreparedCall", calls[i]).bound, results[i], texts and texts[k])
            for k, i in enumerate(unanswered)
            if (cacheable := cacheables[i]) is not None and not isinstance(results[i], GatewayError)
        ]
        if answers:
            yield from self.remember(answers)
        return results

    def cacheable(self, bound: BoundCall | None) -> Cacheable | None:
        """The call's cache key when a cache is set and the call's answer could be cached."""
        cache = self.shared.cache
        if cache is None or bound is None:
            return None
        # A bulk run asks several times per call (preview, cache pass, batch): compute once.
        known = self._cacheables_for(cache).get(id(bound))
        if known is not None:
            return known[1]
        pinned = pinned_block(bound)
        cacheable = None
        if pinned is not None:
            key = cache.digest(call_key(self.gateway, self.node, bound), bound.rpc_method)
            cacheable = Cacheable(key, must_be_final(pinned))
        if len(self._cacheables) >= 100_000:
            self._cacheables.clear()
        # Keyed by id: the entry holds the call, so no other object takes its id meanwhile.
        self._cacheables[id(bound)] = (bound, cacheable)
        return cacheable

    def cacheables(self, bounds: Sequence[BoundCall | None]) -> list[Cacheable | None]:
        """`cacheable` for many calls (a bulk run's cache pass), the known ones found in one
        pass without a call for each."""
        cache = self.shared.cache
        if cache is None:
            return [None] * len(bounds)
        known = list(map(self._cacheables_for(cache).get, map(id, bounds)))
        if None in known:
            return [self.cacheable(bound) for bound in bounds]
        return list(map(_SECOND, known))

    def _cacheables_for(self, cache: ResponseCache) -> dict[int, tuple[BoundCall, Any]]:
        """The keys worked out for `cache`: forgotten when the settings change the cache."""
        if self._cacheables_cache is not cache:
            self._cacheables.clear()
            self._cacheables_cache = cache
        return self._cacheables

    def in_cache(self, calls: Sequence[PreparedCall]) -> list[bool]:
        """Which calls the cache answers now (for previews: not counted as hits)."""
        keys = self.cacheables([call.bound for call in calls])
        cache = self.shared.cache
        held = cache.contains([k.key for k in keys if k is not None]) if cache else set()
        return [k is not None and k.key in held for k in keys]

    def answered(self, calls: Sequence[PreparedCall]) -> tuple[list[Any], list[int]]:
        """What the cache answers of `calls` now (see `AsyncNode.answered_from_cache`)."""
        if self.shared.cache is None:
            return [None] * len(calls), list(range(len(calls)))
        return self.from_cache(calls, self.cacheables(list(map(_BOUND_OF, calls))))

    def from_cache(
        self, calls: Sequence[PreparedCall | None], cacheables: Sequence[Cacheable | None]
    ) -> tuple[list[Any], list[int]]:
        """The answers the cache holds (each recorded as a 0 RU hit), and the positions of the
        calls it does not answer (their results are None)."""
        cache = cast(ResponseCache, self.shared.cache)  # asked only when one is set
        if None in cacheables:  # no cache, or calls whose answers are never cached: misses
            known = [i for i, cacheable in enumerate(cacheables) if cacheable is not None]
            results: list[Any] = [MISS] * len(calls)
            if known:
                keys = [cacheable.key for cacheable in cacheables if cacheable is not None]
                for index, answer in zip(known, cache.answers(keys), strict=True):
                    results[index] = answer
        else:
            results = cache.answers(list(map(_KEY_OF, cacheables)))
        if MISS not in results:  # every call answered (a re-run): no position to sort out
            self.record_hits(cast("Sequence[PreparedCall]", calls))
            return results, []
        unanswered = [index for index, result in enumerate(results) if result is MISS]
        missed = set(unanswered)
        self.record_hits([call for i, call in enumerate(calls) if i not in missed and call])
        for index in unanswered:
            results[index] = None
        return results, unanswered

    def record_hits(self, calls: Sequence[PreparedCall]) -> None:
        """One ledger entry per call answered from the cache (0 RU), written in one go."""
        if not calls:
            return  # nothing to write, and no ledger display to wake
        meter = self.shared.meter
        now = meter.clock()
        make = Entry._make
        # Every field but `params` (the last) is the same for a method's hits: made once each.
        heads = {
            name: Entry(now, self.node, name, 0, 0.0, "ok", cache_hit=True, note=CACHE_HIT_NOTE)[
                :-1
            ]
            for name in set(map(_METHOD_NAME_OF, calls))
        }
        params = map(_PARAMS_JSON_OF, map(_BOUND_OF, calls))
        if len(heads) == 1:
            head = next(iter(heads.values()))
            recorded = [make((*head, text)) for text in params]
        else:
            names = map(_METHOD_NAME_OF, calls)
            recorded = [
                make((*heads[name], text)) for name, text in zip(names, params, strict=True)
            ]
        for call in calls:
            call.receipt = CACHE_HIT
        meter.ledger.record_many(recorded)

    def remember(self, answers: list[tuple[Cacheable, BoundCall, Any, str | None]]) -> Steps:
        """Store the answers that are final now (see `_cache_policy`), each given with its
        result's JSON text when known (else None: the cache encodes the result)."""
        pinned = [answer[0].block for answer in answers if answer[0].block is not None]
        head = (yield from self.head_for_finality(max(pinned))) if pinned else None
        depth = self.finality_depth
        cast(ResponseCache, self.shared.cache).store(
            (cacheable.key, self.node, bound.method.name, result, text)
            for cacheable, bound, result, text in answers
            if keeps(cacheable.block, head, depth)
        )


_BOUND_OF = attrgetter("bound")
_PARAMS_JSON_OF = attrgetter("params_json")
_METHOD_NAME_OF = attrgetter("bound.method.name")
_SECOND: Callable[[Any], Any] = itemgetter(1)
_KEY_OF = attrgetter("key")
