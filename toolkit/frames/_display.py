"""`readable(frame)`: a frame shown for people, its data untouched.

pandas prints a float column whose values span many magnitudes in scientific notation
(``1.000000e-09`` SOL, ``5.000000e+18`` tokens) and cuts text at 50 characters. `readable` returns
a `pandas.io.formats.style.Styler` that shows every number in full with thousands separators
(floats with up to `decimals` places, trailing zeros dropped, never in scientific notation) and
every text whole. The frame itself is not changed: ``readable(frame).data is frame``, so the exact
integers are still in their columns.
"""

from __future__ import annotations

import functools
import hashlib
import math
import numbers
from decimal import ROUND_HALF_EVEN, Decimal
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd
    from pandas.io.formats.style import Styler


def human_number(value: Any, *, decimals: int = 9) -> str:
    """`value` as people write it: ``1,234.5``, ``0.000000001``, ``5,000,000,000,000,000,000``.

    Integers (Python ints of any size included) are exact; floats get up to `decimals` places.
    Anything that is not a number is returned as its text; a missing value as ``NA``.
    """
    if value is None:
        return "NA"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, numbers.Integral):
        return f"{int(value):,}"
    if isinstance(value, numbers.Real):
        number = float(value)
        if math.isnan(number):
            return "NA"
        if math.isinf(number):
            return str(number)
        # The shortest text that reads back as the same float (no 0.1 + 0.2 noise), at most
        # `decimals` places, written out in full.
        exact = Decimal(repr(number))
        exponent = exact.as_tuple().exponent  # an int: NaN and the infinities are out above
        if isinstance(exponent, int) and exponent < -decimals:
            exact = exact.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_EVEN)
        text = f"{exact:,f}"
        if "." in text:
            text = text.rstrip("0").rstrip(".")
        return "0" if text in ("-0", "") else text
    import pandas as pd

    if pd.api.types.is_scalar(value) and pd.isna(value):
        return "NA"
    return str(value)


NUMERIC_KINDS = {"integer", "floating", "mixed-integer-float", "decimal"}


@functools.cache
def _readable_styler() -> type:
    """A Styler whose text form is its frame's: pandas' is the object's address, which a
    notebook run twice would show differently."""
    from pandas.io.formats.style import Styler

    class ReadableStyler(Styler):
        def __repr__(self) -> str:
            return repr(self.data)  # type: ignore[attr-defined]  # Styler.data: not in the stubs

    return ReadableStyler


def readable(frame: pd.DataFrame, *, decimals: int = 9, index: bool = False) -> Styler:
    """`frame` styled for reading (see the module doc): numbers, exact ints in object columns
    included, right-aligned, the rest left-aligned; the row index hidden unless `index`."""
    import pandas as pd

    styler = _readable_styler()(frame).format(lambda value: human_number(value, decimals=decimals))
    numeric = [
        column
        for position, column in enumerate(frame.columns)
        if pd.api.types.infer_dtype(frame.iloc[:, position], skipna=True) in NUMERIC_KINDS
    ]
    text = [column for column in frame.columns if column not in numeric]
    if numeric:
        styler = styler.set_properties(subset=numeric, **{"text-align": "right"})
    if text:
        styler = styler.set_properties(subset=text, **{"text-align": "left"})
    if not index:
        styler = styler.hide(axis="index")
    # pandas names a table's CSS rules after a random id: a notebook run twice would show other
    # HTML. An id made of the frame's content is the same on every run, and tables that share
    # one share their CSS as well.
    content = (
        list(frame.columns),
        frame.shape,
        frame.head(3).to_dict("list"),
        frame.tail(3).to_dict("list"),
    )
    return styler.set_uuid(hashlib.sha256(repr(content).encode()).hexdigest()[:12])
