"""Reports whose every number can be checked: a notebook rendered with its provenance, and
verified from its tape offline at 0 RU, from the command line: ``python -m toolkit report
NOTEBOOK --tape TAPE -o REPORT.html [-p name=value ...]`` renders, ``python -m toolkit report
--verify REPORT.html --tape TAPE`` verifies (the Reports guide has the whole workflow).

`say` writes a Markdown sentence whose numbers come from the data. Rendering and verifying need
the `report` extra (nbclient, nbconvert, ipykernel); `say` needs nothing more than the toolkit.
"""

from ._report import (
    EXIT_CELL_FAILED,
    EXIT_DIFFERS,
    EXIT_OK,
    EXIT_OTHER_TAPE,
    EXIT_USAGE,
    ReportError,
    Verdict,
    render,
    verify,
)
from ._run import parse_parameters
from ._say import markdown, say
from ._tape_facts import TapeFacts, tape_facts

__all__ = [
    "EXIT_CELL_FAILED",
    "EXIT_DIFFERS",
    "EXIT_OK",
    "EXIT_OTHER_TAPE",
    "EXIT_USAGE",
    "ReportError",
    "TapeFacts",
    "Verdict",
    "markdown",
    "parse_parameters",
    "render",
    "say",
    "tape_facts",
    "verify",
]
