import json

from click.testing import CliRunner

from benchmarks.synthetic import Shape, generate
from exobrain.cli.status import main as status
from exobrain.cli.validate import main as validate


def test_small_synthetic_exobrain_is_valid_and_resolves(tmp_path):
    shape = Shape(groups=2, people=3, hosts=2, per_scope=3, global_skills=6)
    root = generate(tmp_path / "s", shape)
    assert CliRunner().invoke(validate, ["--repo", str(root)]).exit_code == 0
    data = json.loads(CliRunner().invoke(status, ["--repo", str(root), "--json"]).stdout)
    assert data["chain"] == ["global", "groups/g000", "people/p0000", "people/p0000/hosts/h0"]
    tiers = {(s["name"], s["scope"]): s["tier"] for s in data["skills"]}
    assert tiers[("global-skill-0000", "global")] == "off"  # forced, turned off by p0000
    assert tiers[("group-000-skill-1", "groups/g000")] == "always"  # opted in by override
    assert tiers[("p0000-h0-skill-0", "people/p0000/hosts/h0")] == "always"
    declared = json.loads(
        CliRunner().invoke(status, ["--repo", str(root), "--all", "--json"]).stdout
    )
    assert len(declared["skills"]) == shape.total_skills
