import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "sdks" / "python"))
VECTORS = ROOT / "vectors"
SHARED = Path("/work/shared/vectors")


def load(path: Path):
    return json.loads(path.read_text(encoding="utf-8"))
