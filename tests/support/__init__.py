"""What the tests in tests/<family>/ share: builders of real exobrains and git repositories
(:mod:`tests.support.helpers` and the modules beside it) and the project's fixed places."""

from pathlib import Path

#: The project's root: pyproject.toml, scripts/, skills/, seed/ and tests/.
ROOT = Path(__file__).resolve().parents[2]
#: Recorded inputs (hook payloads and the like).
DATA = ROOT / "tests" / "data"
#: Fixture files (the search-quality corpus).
FIXTURES = ROOT / "tests" / "fixtures"
