"""`frames.readable`: numbers for people (no scientific notation), texts whole, data untouched."""

from __future__ import annotations

import re

import pandas as pd

from toolkit.frames import human_number, readable


def cells(styler) -> list[str]:
    return re.findall(r"<td[^>]*>([^<]*)</td>", styler.to_html())


def test_numbers_are_written_in_full_with_thousands_separators():
    assert human_number(1e-9) == "0.000000001"
    assert human_number(5e18) == "5,000,000,000,000,000,000"
    assert human_number(99.749995) == "99.749995"
    assert human_number(-0.250005) == "-0.250005"
    assert human_number(2**70) == "1,180,591,620,717,411,303,424"  # an exact int stays exact
    assert human_number(float("nan")) == human_number(pd.NA) == human_number(None) == "NA"
    assert human_number(True) == "True" and human_number("0xab") == "0xab"


def test_a_readable_frame_has_no_scientific_notation_and_keeps_its_data():
    frame = pd.DataFrame(
        {
            "lamports": pd.Series([1, 100_000_000_000], dtype=object),
            "sol": [1e-9, 100.0],
            "supply": [5e18, 1_733_858_737.605609],
            "why": ["x" * 70 + " (archive at 128 or more)", pd.NA],
        }
    )
    assert "e+" in frame.to_string() or "e-" in frame.to_string()  # what pandas prints
    styler = readable(frame)
    shown = cells(styler)
    assert not any(re.search(r"\de[+-]\d", cell) for cell in shown)
    assert "100,000,000,000" in shown and "0.000000001" in shown
    assert "5,000,000,000,000,000,000" in shown and "1,733,858,737.605609" in shown
    assert any(cell.endswith("(archive at 128 or more)") for cell in shown)
    assert styler.data is frame and frame["lamports"].tolist() == [1, 100_000_000_000]


def test_numbers_are_right_aligned_exact_ints_included_and_texts_left():
    frame = pd.DataFrame(
        {"lamports": pd.Series([1, 2**70], dtype=object), "sol": [0.5, 1.5], "who": ["a", "b"]}
    )
    css = readable(frame).to_html().split("</style>")[0]
    rules = dict((rule.split("{")[1].strip(), rule.split("{")[0]) for rule in css.split("}")[:-1])
    right, left = rules["text-align: right;"], rules["text-align: left;"]
    assert "col0" in right and "col1" in right and "col2" not in right
    assert "col2" in left and "col0" not in left


def test_a_readable_frame_shows_the_same_html_on_every_run():
    import pandas as pd

    frame = pd.DataFrame({"wei": pd.Series([10**21, 5], dtype=object), "who": ["a", "b"]})
    assert readable(frame).to_html() == readable(frame.copy()).to_html()
    other = frame.assign(who=["a", "c"])
    assert readable(other).to_html() != readable(frame).to_html()
    assert readable(other).uuid != readable(frame).uuid
