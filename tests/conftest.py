import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# The shared folder sits beside the repository (`../shared`); SIMKIT_SHARED overrides.
SHARED = Path(os.environ.get("SIMKIT_SHARED", REPO.parent / "shared"))
FIXTURES = SHARED / "fixtures"


@pytest.fixture
def real_games_file():
    path = FIXTURES / "real-games-sample.jsonl"
    if not path.is_file():
        pytest.skip(f"real games not available ({path} is absent)")
    return path
