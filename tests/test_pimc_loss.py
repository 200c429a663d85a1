"""scripts/pimc_loss.py: its loss per card is the one ``simkit analyze --strategy`` writes, seed for seed."""

import importlib.util
import json
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO.parent / "shared" / "fixtures" / "real-games-sample.jsonl"
_spec = importlib.util.spec_from_file_location("pimc_loss", REPO / "scripts" / "pimc_loss.py")
pimc_loss = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(pimc_loss)


@pytest.mark.skipif(not FIXTURES.exists(), reason="../shared/fixtures is not here")
def test_the_loss_per_card_is_analyzes_and_a_grading_is_kept(tmp_path, capsys):
    """Per seed, the mean loss of the unforced cards equals the mean of analyze's ``<strategy>_loss`` column on the
    same games (pimc: its worlds differ by seed, so two seeds give two figures); each cell by trick, lead or follow,
    is analyze's mean over both seeds; a second run reuses the grading, and another choice of games is refused."""
    from simkit.analyze.batch import analyze_file

    grading = tmp_path / "grading"
    spec = "pimc[worlds=4,node_budget=5000]"
    out = tmp_path / "out.json"
    args = [str(FIXTURES), spec, "--grading", str(grading), "--last", "6", "--seeds", "0", "1", "--json", str(out)]
    assert pimc_loss.main(args) == 0
    (result,) = json.loads(out.read_text())
    both = []
    for k, seed in enumerate((0, 1)):
        analyze_file(grading / "games.jsonl", tmp_path / f"a{seed}", rules="sauspiel", strategies=[spec],
                     advice_seed=seed, report=False, workers=1)
        d = pq.read_table(tmp_path / f"a{seed}" / "decisions.parquet").to_pandas()
        column = [c for c in d.columns if c.endswith("_loss") and c != "loss"][0]
        unforced = d[~d.forced].assign(adv=lambda x: x[column].abs())
        assert result["loss"][k] == pytest.approx(unforced.adv.mean(), abs=1e-12)
        both.append(unforced)
    assert result["cards"] == len(unforced) and result["games"] == 6
    pooled = pd.concat(both)
    cells = pooled.groupby([pooled.position == 0, "trick"]).adv.mean()
    assert result["by_trick"] == pytest.approx({("L" if lead else "F") + str(t): v for (lead, t), v in cells.items()})
    # by trick and position: the strategy's loss and the played card's (the same cards under both seeds)
    at = pooled.assign(played=pooled["loss"].abs()).groupby(["trick", "position"])
    assert result["by_position"] == {f"T{t}P{p}": {"loss": pytest.approx(a), "played": pytest.approx(b),
                                                   "cards": n // 2}
                                     for (t, p), a, b, n in zip(at.adv.mean().index, at.adv.mean(),
                                                                at.played.mean(), at.size())}
    assert "position 3" in pimc_loss.format_by_position(result["by_position"])
    # by contract and role: every trick here; with --role-tricks 2 the cards of trick 2 only
    def by_role(cards):
        at = cards.assign(played=cards["loss"].abs()).groupby(["contract", "role"])
        return {f"{c}/{r}": {"loss": pytest.approx(a), "played": pytest.approx(b), "cards": n // 2,
                             "given_away": pytest.approx((a - b) * n / 2)}
                for (c, r), a, b, n in zip(at.adv.mean().index, at.adv.mean(), at.played.mean(), at.size())}

    assert result["by_role"] == by_role(pooled)
    assert pimc_loss.main(args + ["--by-role", "--role-tricks", "2"]) == 0
    assert json.loads(out.read_text())[0]["by_role"] == by_role(pooled[pooled.trick == 2])
    assert "given away" in pimc_loss.format_by_role(result["by_role"], None)
    assert 0 < result["mean"] < 10 and result["by_trick"]["L1"] >= 0
    capsys.readouterr()
    assert pimc_loss.main(args[:-2]) == 0  # graded already: not again
    assert "grading" not in capsys.readouterr().err
    with pytest.raises(SystemExit, match="give another --grading"):
        pimc_loss.main(args[:4] + ["--last", "5"])
