"""A parameter form built from the method catalog: one input per `Param`, chosen by its kind.

The form only turns what the user typed into Python values (text to int, JSON text to a dict, lines
to a list); whether those values are right is the catalog's business (`Method.bind`), and the
explorer shows the catalog's message next to the field it names. Values come out keyed by the
spec's parameter names, objects (eth_call's call, simulateTransaction's config) as nested dicts, and
a field left empty is simply not given, so the catalog's defaults apply.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import ipywidgets as widgets

from .._json import NestedTooDeep, load_bounded
from ..catalog import BLOCK_TAGS, Param
from ._html import text

LABEL_WIDTH = "190px"  # the longest name, replaceRecentBlockhash, fits
# An input narrower than this goes below its label (the row wraps): see `Field.arrange`.
INPUT_MIN_WIDTH = "200px"
# Kinds the catalog accepts as Python ints: a form can only hold text, so digits become an int
# (the catalog rejects the string "123" as ambiguous, but in a form decimal is what people type).
_NUMBER_KINDS = frozenset({"block", "block-number", "quantity", "int"})
_DECIMAL = re.compile(r"-?[0-9][0-9_]*")
_LIST_SEPARATORS = re.compile(r"[\s,]+")


class InputError(ValueError):
    """Text in a field that cannot be read as a value at all (JSON that does not parse)."""

    def __init__(self, path: str, message: str):
        self.path = path
        super().__init__(f"{path}: {message}")


def _placeholder(param: Param) -> str:
    if param.has_default:
        return f"{_shown(param.default)} (default)"
    if param.has_server_default:
        return _not_sent(param)
    return param.kind.doc


def _not_sent(param: Param) -> str:
    """What leaving an optional parameter out means."""
    if param.has_server_default:
        return f"not sent: the node assumes {_shown(param.server_default)}"
    return "not sent"


def _shown(value: Any) -> str:
    return json.dumps(value) if isinstance(value, dict | list | bool) else str(value)


class Field:
    """One parameter: a label, an input widget, and a line for the catalog's message about it."""

    def __init__(self, param: Param, path: str):
        self.param = param
        self.path = path
        self.input = self.make_input()
        self.input.add_class("toolkit-param")
        self.input.add_class(f"toolkit-param-{path.replace('.', '-')}")
        required = " *" if param.required else ""
        self.label = widgets.HTML(
            f"<b>{text(param.name)}</b>{required}",
            layout=widgets.Layout(width=LABEL_WIDTH, min_width=LABEL_WIDTH),
        )
        self.label.tooltip = f"{param.doc} ({param.kind.doc})"
        self.error = widgets.HTML(layout=widgets.Layout(display="none"))
        self.message: str | None = None  # the catalog's message shown below the input
        self.widget = self.arrange()

    def make_input(self) -> widgets.Widget:
        raise NotImplementedError

    def arrange(self) -> widgets.Widget:
        """The label beside the input, the message below. In a narrow panel the row wraps and
        the input goes below its label (the stylesheet then stops indenting the message)."""
        row = widgets.HBox([self.label, self.input], layout=widgets.Layout(flex_flow="row wrap"))
        field = widgets.VBox([row, self.error])
        field.add_class("toolkit-field")
        return field

    def read(self) -> Any:
        """The Python value to give the catalog, or None when the field is left empty."""
        raise NotImplementedError

    def write(self, value: Any) -> None:
        self.input.value = "" if value is None else str(value)

    def show_error(self, message: str | None) -> None:
        self.message = message or None
        self.error.value = f'<div class="tk-field-error">{text(message)}</div>' if message else ""
        self.error.layout.display = "" if message else "none"

    def observe(self, callback: Callable[[], None]) -> None:
        self.input.observe(lambda _change: callback(), names="value")

    def fields(self) -> Iterator[Field]:
        yield self


class TextField(Field):
    """Free text; digits become an int for number kinds. Block fields offer the tags to pick."""

    def make_input(self) -> widgets.Widget:
        layout = widgets.Layout(width="100%", flex=f"1 1 {INPUT_MIN_WIDTH}")
        placeholder = _placeholder(self.param)
        initial = "" if not self.param.has_default else str(self.param.default)
        if self.param.kind.name == "block":
            return widgets.Combobox(
                value=initial,
                options=BLOCK_TAGS,
                ensure_option=False,
                placeholder=f"{placeholder}; a tag, 0x hex or decimal number",
                layout=layout,
            )
        if self.param.kind.name == "solana-tx":
            layout.height = "64px"
            return widgets.Textarea(value=initial, placeholder=placeholder, layout=layout)
        return widgets.Text(value=initial, placeholder=placeholder, layout=layout)

    def read(self) -> Any:
        raw = self.input.value.strip()
        if not raw:
            return None
        if self.param.kind.name in _NUMBER_KINDS and _DECIMAL.fullmatch(raw):
            try:
                return int(raw)
            except ValueError:  # more digits than Python reads (sys.get_int_max_str_digits)
                digits = len(raw.lstrip("-").replace("_", ""))
                raise InputError(
                    self.path,
                    f"a number of {digits:,} digits is past what this parameter takes "
                    f"({self.param.kind.doc})",
                ) from None
        return raw


class ChoiceField(Field):
    """A dropdown of the parameter's `choices`; optional ones can also be left unsent."""

    # A Dropdown whose value is None shows nothing selected, so "not sent" needs its own value.
    NOT_SENT = ""

    def make_input(self) -> widgets.Widget:
        options: list[tuple[str, Any]] = [(str(choice), choice) for choice in self.param.choices]
        if not self.param.required and not self.param.has_default:
            options.insert(0, (f"({_not_sent(self.param)})", self.NOT_SENT))
        initial = self.param.default if self.param.has_default else options[0][1]
        return widgets.Dropdown(options=options, value=initial)

    def read(self) -> Any:
        value = self.input.value
        return None if value == self.NOT_SENT else value

    def write(self, value: Any) -> None:
        self.input.value = self.NOT_SENT if value is None else value


class BoolField(Field):
    """A checkbox. An optional flag is sent only when it differs from what the node assumes."""

    def make_input(self) -> widgets.Widget:
        return widgets.Checkbox(value=self._assumed(), indent=False)

    def _assumed(self) -> bool:
        if self.param.has_default:
            return bool(self.param.default)
        return bool(self.param.server_default) if self.param.has_server_default else False

    def read(self) -> Any:
        value = self.input.value
        if not self.param.required and value == self._assumed():
            return None
        return value

    def write(self, value: Any) -> None:
        self.input.value = self._assumed() if value is None else bool(value)


class ListField(Field):
    """A list of addresses, one per line (commas and spaces separate too)."""

    def make_input(self) -> widgets.Widget:
        return widgets.Textarea(
            placeholder=f"{self.param.kind.doc}, one per line",
            layout=widgets.Layout(width="100%", height="56px"),
        )

    def read(self) -> Any:
        items = [item for item in _LIST_SEPARATORS.split(self.input.value) if item]
        return items or None

    def write(self, value: Any) -> None:
        self.input.value = "\n".join(value or ())


class JsonField(Field):
    """An object without declared fields (TON's named params), typed as JSON."""

    def make_input(self) -> widgets.Widget:
        initial = json.dumps(self.param.default) if self.param.has_default else ""
        return widgets.Textarea(
            value=initial,
            placeholder='JSON object, e.g. {"address": "EQ..."}',
            layout=widgets.Layout(width="100%", height="56px"),
        )

    def read(self) -> Any:
        raw = self.input.value.strip()
        if not raw:
            return None
        try:
            return load_bounded(raw)
        except NestedTooDeep:
            raise InputError(self.path, "JSON nested too deep") from None
        except json.JSONDecodeError as error:
            raise InputError(
                self.path, f"not valid JSON ({error.msg}, column {error.colno})"
            ) from None

    def write(self, value: Any) -> None:
        self.input.value = "" if value is None else json.dumps(value)


class ObjectField(Field):
    """An object with declared fields (eth_call's call, simulateTransaction's config)."""

    def make_input(self) -> widgets.Widget:
        self.form = ParamForm(self.param.fields, prefix=f"{self.path}.")
        self.form.layout = widgets.Layout(
            border_left="2px solid var(--jp-border-color2, #ddd)", padding="0 0 0 8px"
        )
        return self.form

    def arrange(self) -> widgets.Widget:
        # Beside its label a nested form would be squeezed; below it, indented, it has the width.
        self.input.layout.margin = "0 0 4px 16px"
        return widgets.VBox([self.label, self.input, self.error])

    def read(self) -> Any:
        values = self.form.values()
        if not values and not self.param.required:
            return None  # nothing filled in: leave the whole object out
        return values

    def write(self, value: Any) -> None:
        self.form.set_values(value or {})

    def observe(self, callback: Callable[[], None]) -> None:
        self.form.on_change(callback)

    def fields(self) -> Iterator[Field]:
        yield self
        for field in self.form.fields:
            yield from field.fields()


def make_field(param: Param, path: str) -> Field:
    """The input that fits the parameter's kind, choices and fields."""
    if param.fields:
        return ObjectField(param, path)
    if param.choices:
        return ChoiceField(param, path)
    kind = param.kind.name
    if kind == "bool":
        return BoolField(param, path)
    if kind == "object":
        return JsonField(param, path)
    if kind == "address-list":
        return ListField(param, path)
    return TextField(param, path)


class ParamForm(widgets.VBox):
    """The inputs for a tuple of catalog parameters (a method's, or an object's fields)."""

    def __init__(self, params: tuple[Param, ...], *, prefix: str = ""):
        self.fields = [make_field(param, prefix + param.name) for param in params]
        # Messages about no field in particular (a rule across parameters) go here.
        self.problem = widgets.HTML()
        self.problem_message: str | None = None
        children = [field.widget for field in self.fields]
        if not params:
            children.append(widgets.HTML('<span class="tk-muted">No parameters.</span>'))
        super().__init__([*children, self.problem])

    def values(self) -> dict[str, Any]:
        """What the user gave, by parameter name; raises InputError for unreadable text."""
        values = {}
        for field in self.fields:
            value = field.read()
            if value is not None:
                values[field.param.name] = value
        return values

    def set_values(self, values: Mapping[str, Any]) -> None:
        """Fill fields by parameter name (nested dicts fill sub-forms)."""
        for field in self.fields:
            if field.param.name in values:
                field.write(values[field.param.name])

    def field(self, path: str) -> Field:
        for field in self.all_fields():
            if field.path == path:
                return field
        raise KeyError(path)

    def all_fields(self) -> Iterator[Field]:
        for field in self.fields:
            yield from field.fields()

    def on_change(self, callback: Callable[[], None]) -> None:
        for field in self.fields:
            field.observe(callback)

    def messages(self) -> dict[str, str]:
        """The messages on show, by field path ("" for a rule across fields): what the user
        reads at the form, as text."""
        shown = {field.path: field.message for field in self.all_fields() if field.message}
        if self.problem_message:
            shown[""] = self.problem_message
        return shown

    def clear_errors(self) -> None:
        self.problem.value = ""
        self.problem_message = None
        for field in self.all_fields():
            field.show_error(None)

    def show_error(self, path: str | None, message: str) -> None:
        """Show `message` at the field `path` names (or its closest enclosing field)."""
        while path:
            try:
                self.field(path).show_error(message)
                return
            except KeyError:
                path = path.rpartition(".")[0]
        self.problem_message = message
        self.problem.value = f'<div class="tk-field-error">{text(message)}</div>'
