"""The workload layer: many planned calls, previewed, run in bulk, and their provenance.

Built on the client layer's public names only (`Node.prepare`, `send`, `price`).
"""

from ._dataset import compact_dataset
from ._dataset_files import read_dataset
from ._provenance import Provenance, provenance
from ._workload import Preview, Workload

__all__ = ["Preview", "Provenance", "Workload", "compact_dataset", "provenance", "read_dataset"]
