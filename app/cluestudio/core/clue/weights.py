"""CLUE weight profiles: the 15 weights of DESIGN §3, read from a versioned TOML file.

The default profile (``resources/weights/default.toml``) holds the paper's optimum; users and
the calibration module write their own files with the same layout. Every profile is checked
on load: weights are non-negative and each group sums to 1 within 1e-6.
"""

from __future__ import annotations

import hashlib
import json
import math
import tomllib
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from cluestudio.core.errors import ClueStudioError

#: Weight groups as they appear in the TOML file; each group sums to 1.
GROUPS: dict[str, tuple[str, ...]] = {
    "clue": ("w_e", "w_r"),
    "class": ("w_n", "w_a", "w_m"),
    "attribute": ("w_an", "w_at"),
    "method": ("w_mn", "w_mt", "w_mp"),
    "param": ("w_pn", "w_pt"),
    "relation": ("w_rt", "w_rn", "w_rm"),
}
TOLERANCE = 1e-6


class WeightsError(ClueStudioError):
    """A weight profile that is missing a weight, has a negative one or a bad group sum."""


@dataclass(frozen=True)
class ClueWeights:
    """The 15 CLUE weights (names as in the paper) plus the profile's name and version."""

    w_e: float
    w_r: float
    w_n: float
    w_a: float
    w_m: float
    w_an: float
    w_at: float
    w_mn: float
    w_mt: float
    w_mp: float
    w_pn: float
    w_pt: float
    w_rt: float
    w_rn: float
    w_rm: float
    name: str = "custom"
    version: int = 1
    source: str = ""  # the file it came from, for error messages and reports

    def __post_init__(self) -> None:
        where = f" in {self.source}" if self.source else ""
        for group, keys in GROUPS.items():
            values = [getattr(self, k) for k in keys]
            for key, value in zip(keys, values, strict=True):
                if not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
                    raise WeightsError(
                        f"weight {key} of group [{group}]{where} must be a non-negative "
                        f"number, got {value!r}")
            total = math.fsum(values)
            if abs(total - 1.0) > TOLERANCE:
                raise WeightsError(
                    f"weights of group [{group}] ({' + '.join(keys)}){where} sum to "
                    f"{total:.6g}, they must sum to 1 (within {TOLERANCE:g})")

    # -- construction -------------------------------------------------------------------
    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], *, source: str = "") -> ClueWeights:
        """From the TOML layout: top-level ``name``/``version`` and one table per group."""
        where = f" in {source}" if source else ""
        values: dict[str, float] = {}
        for group, keys in GROUPS.items():
            table = data.get(group)
            if not isinstance(table, Mapping):
                raise WeightsError(f"weight group [{group}] is missing{where}")
            unknown = sorted(set(table) - set(keys))
            if unknown:
                raise WeightsError(
                    f"unknown weight(s) {', '.join(unknown)} in group [{group}]{where}; "
                    f"expected {', '.join(keys)}")
            for key in keys:
                if key not in table:
                    raise WeightsError(f"weight {key} of group [{group}] is missing{where}")
                values[key] = table[key]
        version = data.get("version", 1)
        if not isinstance(version, int):
            raise WeightsError(f"weight profile version must be an integer{where}")
        return cls(**values, name=str(data.get("name", "custom")), version=version,
                   source=source)

    @classmethod
    def load(cls, path: str | Path) -> ClueWeights:
        path = Path(path)
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except OSError as error:
            raise WeightsError(f"cannot read weight profile {path}: {error}") from error
        except tomllib.TOMLDecodeError as error:
            raise WeightsError(f"{path}: not valid TOML: {error}") from error
        return cls.from_mapping(data, source=str(path))

    @classmethod
    def default(cls) -> ClueWeights:
        return cls.shipped("default")

    @classmethod
    def shipped(cls, name: str) -> ClueWeights:
        """A profile shipped in ``resources/weights/NAME.toml`` (``default``: the paper's
        weights at three decimals; ``oodeval-code``: the authors' package, full precision)."""
        if name not in _SHIPPED:
            path = default_weights_path().with_name(f"{name}.toml")
            if not path.is_file():
                raise WeightsError(f"no shipped weight profile {name!r} ({path})")
            _SHIPPED[name] = cls.load(path)
        return _SHIPPED[name]

    # -- output ---------------------------------------------------------------------------
    def values(self) -> dict[str, float]:
        """The 15 weights by name."""
        return {k: float(getattr(self, k)) for keys in GROUPS.values() for k in keys}

    def to_toml_dict(self) -> dict[str, Any]:
        """The TOML layout (for ``tomli_w.dumps``), so calibrated weights can be saved."""
        out: dict[str, Any] = {"name": self.name, "version": self.version}
        for group, keys in GROUPS.items():
            out[group] = {k: float(getattr(self, k)) for k in keys}
        return out

    def fingerprint(self) -> str:
        """A short hash of the 15 values (not the name), for the workspace's scores table."""
        blob = json.dumps(self.values(), sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:16]

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["fingerprint"] = self.fingerprint()
        return data


def default_weights_path() -> Path:
    from cluestudio.resources_path import resources_dir

    return resources_dir() / "weights" / "default.toml"


_SHIPPED: dict[str, ClueWeights] = {}


WEIGHT_NAMES: tuple[str, ...] = tuple(
    f.name for f in fields(ClueWeights) if f.name.startswith("w_"))
