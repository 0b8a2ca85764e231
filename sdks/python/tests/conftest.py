import json
import os
import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "sdks" / "python"))
VECTORS = ROOT / "vectors"
# Public vector sets stay in ../shared/vectors beside the repository (never copied into the project's vectors/).
SHARED = Path(os.environ.get("AAR_SHARED_VECTORS") or ROOT.parent / "shared" / "vectors")


def shared(*parts: str):
    """The path of `parts` under the shared vectors, or None (with a notice) where it is absent; under CI=true an
    absent path is an error, so a lost suite cannot pass as skipped."""
    path = SHARED.joinpath(*parts)
    if path.exists():
        return path
    message = f"shared vectors not found at {path}: the tests that read them are SKIPPED"
    if os.environ.get("CI") == "true":
        raise RuntimeError(message + "; under CI=true this is a failure")
    warnings.warn("NOTICE: " + message)
    return None


def load(path: Path):
    return json.loads(path.read_text(encoding="utf-8"))
