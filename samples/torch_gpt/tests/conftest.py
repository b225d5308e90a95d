"""The sample's tests import its modules and the binding of this checkout."""

from __future__ import annotations

import pathlib
import sys

SAMPLE = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(SAMPLE.parents[1] / "python"))
sys.path.insert(0, str(SAMPLE))
