"""`DeadlineWatch`: call deadlines with one timer per loop, behaving as `asyncio.timeout` does."""

from __future__ import annotations

import asyncio
import time

import pytest

from toolkit.client._deadlines import before, deadline_watch


async def answer_after(seconds: float, value: str = "answer") -> str:
    await asyncio.sleep(seconds)
    return value


def test_an_answer_in_time_is_returned_and_nothing_stays_watched():
    async def main():
        result = await before(time.monotonic() + 5, answer_after(0.01))
        return result, len(deadline_watch(asyncio.get_running_loop()))

    assert asyncio.run(main()) == ("answer", 0)


def test_a_call_past_its_deadline_times_out_then_its_task_goes_on_uncancelled():
    async def main():
        started = time.monotonic()
        with pytest.raises(TimeoutError):
            await before(started + 0.2, answer_after(10))
        waited = time.monotonic() - started
        await asyncio.sleep(0.05)  # the expiry's cancel request was absorbed, not left pending
        return waited, asyncio.current_task().cancelling()

    waited, cancelling = asyncio.run(main())
    assert 0.2 <= waited < 1.0
    assert cancelling == 0


def test_each_call_expires_at_its_own_deadline_the_timer_moving_earlier_when_needed():
    async def call(deadline_s: float, answer_s: float, started: float):
        try:
            await before(started + deadline_s, answer_after(answer_s))
        except TimeoutError:
            return "timeout", time.monotonic() - started
        return "answer", time.monotonic() - started

    async def main():
        started = time.monotonic()
        # The late deadline is watched first; the early one must not wait for its timer.
        return await asyncio.gather(
            call(1.2, 10, started), call(0.3, 10, started), call(1.0, 0.6, started)
        )

    (late, late_s), (early, early_s), (answered, answered_s) = asyncio.run(main())
    assert (late, early, answered) == ("timeout", "timeout", "answer")
    assert 0.3 <= early_s < 0.55
    assert 0.6 <= answered_s < 0.85
    assert 1.2 <= late_s < 1.45


def test_a_cancel_from_outside_is_a_cancel_not_a_timeout():
    async def main():
        task = asyncio.create_task(before(time.monotonic() + 5, answer_after(10)))
        await asyncio.sleep(0.1)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return task.cancelled()

    assert asyncio.run(main()) is True


def test_a_cancel_from_outside_as_the_deadline_passes_stays_a_cancel():
    async def main():
        task = asyncio.create_task(before(time.monotonic() + 0.05, answer_after(10)))
        await asyncio.sleep(0)  # the task starts and is watched
        time.sleep(0.1)  # the loop is held past the deadline
        task.cancel()  # asked now; the expiry follows in the loop's next turn
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())


def test_outside_a_task_it_refuses_as_asyncio_timeout_does():
    async def main():
        loop = asyncio.get_running_loop()
        outcome = loop.create_future()

        def drive_by_hand():  # a coroutine stepped in a callback: there is no current task
            try:
                before(time.monotonic() + 1, loop.create_future()).send(None)
            except RuntimeError as error:
                outcome.set_result(str(error))

        loop.call_soon(drive_by_hand)
        return await outcome

    assert asyncio.run(main()) == "a deadline is kept inside a task"
