"""The billing model: what one attempt of a call costs, by its fate. One table, read by the client's
ledger and budget and by the sandbox's metering, so the two agree to the unit.

A gateway bills a request when it receives it, not when the answer reaches the caller. So:

- ``answered``: an HTTP answer came back (a result, an error object, a 429, a 5xx): billed at the
  call's price.
- ``unanswered``: the request was sent but no answer came (a timeout after sending, a connection
  dropped mid-answer, a cancel or interrupt while waiting): the gateway *may* have billed it. The
  budget counts it at its price; the ledger shows it apart (``unconfirmed_ru``), because the client
  cannot know.
- ``not-sent``: the request never left (connect refused, no pooled connection in time, cancelled
  before sending, refused by the budget): 0 RU.
- ``refused``: the gateway refused the request before any node did work: a bad or missing access
  key (401, 403). Assumed free (the public pricing pages bill requests served by a node; a refused
  key serves none); the sandbox follows the same rule.

A 503 is a node not running, or one overloaded: the client cannot tell which, so by default it is
counted as ``unanswered`` (it may have been billed; `MAYBE_STATUSES`). The sandbox's 503 is a
stopped node, which it does not bill. `PricingTable.status_costs` changes either if your bill says
otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Fate(StrEnum):
    ANSWERED = "answered"
    UNANSWERED = "unanswered"
    NOT_SENT = "not-sent"
    REFUSED = "refused"


REFUSED_STATUSES = frozenset({401, 403})
MAYBE_STATUSES = frozenset({503})


@dataclass(frozen=True)
class FateRule:
    fate: Fate
    billed: bool  # confirmed RU in the ledger
    counted: bool  # counted against the budget
    when: str


BILLING: dict[Fate, FateRule] = {
    rule.fate: rule
    for rule in (
        FateRule(Fate.ANSWERED, True, True, "an HTTP answer came back, error answers included"),
        FateRule(
            Fate.UNANSWERED,
            False,
            True,
            "sent, but no answer: timed out, dropped, cancelled or interrupted while waiting",
        ),
        FateRule(
            Fate.NOT_SENT, False, False, "never sent: no connection, cancelled before sending"
        ),
        FateRule(
            Fate.REFUSED,
            False,
            False,
            "refused before any work: a bad key (401/403)",
        ),
    )
}


def fate_of_status(status: int) -> Fate:
    """The fate of an attempt that got an HTTP answer with this status."""
    if status in REFUSED_STATUSES:
        return Fate.REFUSED
    return Fate.UNANSWERED if status in MAYBE_STATUSES else Fate.ANSWERED


def charge(fate: Fate, likely: int, price: int) -> tuple[int, int]:
    """(billed RU, unconfirmed RU) for one attempt of a call that likely costs `likely` and may
    cost up to `price` (the two differ when the block may turn archive before the gateway prices
    the call): an answered attempt is billed the likely price and the rest may have been."""
    rule = BILLING[fate]
    if rule.billed:
        return likely, price - likely
    return 0, price if rule.counted else 0
