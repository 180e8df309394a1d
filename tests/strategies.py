"""Hypothesis strategies shared by the property tests: text a node or a user may send, and JSON."""

from hypothesis import strategies as st

# Arbitrary text, and text that looks like hex or digits (a node's numbers, half right).
HEXISH = st.text(
    alphabet=st.sampled_from("0123456789abcdefABCDEFxX_ \n\t\u00b2\u0661\uff11\uff41-+:"),
    max_size=80,
)
DIGITS = st.text(alphabet=st.characters(categories=["Nd", "No"]), min_size=1, max_size=20)
TEXT = (
    st.text(max_size=120)
    | HEXISH
    | HEXISH.map(lambda t: "0x" + t)
    | DIGITS
    | DIGITS.map(lambda t: "0x" + t)
)


def json_values(floats: st.SearchStrategy[float], text_size: int = 20) -> st.SearchStrategy:
    """JSON values nested up to a dozen leaves, with these floats."""
    return st.recursive(
        st.none() | st.booleans() | st.integers() | floats | st.text(max_size=text_size),
        lambda children: (
            st.lists(children, max_size=4)
            | st.dictionaries(st.text(max_size=10), children, max_size=4)
        ),
        max_leaves=12,
    )


# NaN and infinities too: Python's json writes them, though JSON has no such numbers.
PYTHON_JSON = json_values(st.floats())
STRICT_JSON = json_values(st.floats(allow_nan=False, allow_infinity=False))  # JSON's own numbers
