"""Card notation and rulesets: parsing, formatting, presets, validation."""

import pytest

from simkit.cards import (
    CARD_POINTS, LONG_DECK, SHORT_DECK, CardError, cards_of, format_card, format_hand, parse_card, parse_hand,
    parse_hands, parse_suit,
)
from simkit.rules import Contract, ContractError, Ruleset, RulesetError, load_ruleset, preset_names
from simkit.rules.ruleset import ruleset_from_dict


def test_card_encoding_is_suit_times_eight_plus_rank():
    assert parse_card("E7") == 0
    assert parse_card("EA") == 7
    assert parse_card("GU") == 8 + 3
    assert parse_card("HO") == 16 + 4
    assert parse_card("SZ") == 24 + 6


@pytest.mark.parametrize("token,canonical", [
    ("eo", "EO"), ("h10", "HZ"), ("HX", "HZ"), ("gq", "GO"), ("sj", "SU"), ("EB", "EU"), (" ga ", "GA"),
])
def test_aliases_parse_to_canonical(token, canonical):
    assert format_card(parse_card(token)) == canonical


def test_every_card_round_trips():
    for c in range(32):
        assert parse_card(format_card(c)) == c


@pytest.mark.parametrize("bad", ["", "E", "X7", "E1", "EAA", "E11", "O", 7])
def test_malformed_card_is_an_error_naming_it(bad):
    with pytest.raises(CardError, match="card"):
        parse_card(bad)


def test_points_sum_to_120_in_both_decks():
    assert sum(CARD_POINTS) == 120
    assert sum(CARD_POINTS[c] for c in cards_of(SHORT_DECK)) == 120
    assert len(cards_of(SHORT_DECK)) == 24 and len(cards_of(LONG_DECK)) == 32


def test_hand_parsing_errors():
    assert parse_hand("EO GO, HO") == (1 << 4) | (1 << 12) | (1 << 20)
    with pytest.raises(CardError, match="duplicate card EO"):
        parse_hand(["EO", "eo"])
    with pytest.raises(CardError, match="3 cards, expected 8"):
        parse_hand("EO GO HO", size=8)
    with pytest.raises(CardError, match="not in the short deck"):
        parse_hand("E7", deck="short")


def test_deal_parsing_finds_cards_in_two_hands():
    hands = [cards_of(LONG_DECK)[8 * i: 8 * i + 8] for i in range(4)]
    tokens = [[format_card(c) for c in h] for h in hands]
    assert parse_hands(tokens) == [sum(1 << c for c in h) for h in hands]
    tokens[3][0] = tokens[0][0]
    with pytest.raises(CardError, match="seat 3: duplicate card E7"):
        parse_hands(tokens)


def test_format_hand_in_given_order():
    assert format_hand(parse_hand("E7 EO HA")) == "E7 EO HA"
    assert format_hand(parse_hand("E7 EO HA"), order=[parse_card("EO"), parse_card("HA")]) == "EO HA E7"


def test_suit_aliases():
    assert parse_suit("Eichel") == 0 and parse_suit("hearts") == 2 and parse_suit("s") == 3
    with pytest.raises(CardError, match="unknown suit"):
        parse_suit("spades!")


def test_contracts_validate():
    assert Contract.parse("sauspiel", "gras").name == "rufspiel"
    with pytest.raises(ContractError, match="Herz"):
        Contract.parse("rufspiel", "herz")
    with pytest.raises(ContractError, match="needs a trump suit"):
        Contract.parse("solo")
    with pytest.raises(ContractError, match="takes no suit"):
        Contract.parse("wenz", "gras")
    with pytest.raises(ContractError, match="unknown contract"):
        Contract.parse("bock")
    with pytest.raises(ContractError, match="takes no suit"):
        Contract.parse("bettel", "gras")
    with pytest.raises(ContractError, match="cannot be played Tout"):
        Contract.parse("bettel", None, True)


def test_club_contracts_rank_as_rules_4_says():
    """RULES.md 4.2/4.3: Bettel above the Rufspiel and below every solo type; Sie above every Tout; Ramsch unbid."""
    bettel, sie, ramsch = Contract.parse("bettel"), Contract.parse("sie"), Contract.parse("ramsch")
    assert Contract.parse("rufspiel", "gras").bid_rank < bettel.bid_rank < Contract.parse("farbgeier", "gras").bid_rank
    assert sie.bid_rank > Contract.parse("solo", "eichel", True).bid_rank
    assert ramsch.bid_rank == -1 and not ramsch.is_solo_type and bettel.is_solo_type


def test_bid_order_follows_rules():
    names = ["rufspiel", "farbgeier", "geier", "farbwenz", "wenz", "solo"]
    ranks = [Contract.parse(n, "eichel" if n in ("rufspiel", "solo", "farbgeier", "farbwenz") else None).bid_rank
             for n in names]
    assert ranks == sorted(ranks) and len(set(ranks)) == 6
    assert Contract.parse("farbgeier", "gras", tout=True).bid_rank > Contract.parse("solo", "gras").bid_rank


def test_presets_long_and_short():
    names = preset_names()
    for n in ("stargames", "stargames-short", "sauspiel", "sauspiel-short"):
        assert n in names
    assert load_ruleset() == load_ruleset("stargames") == Ruleset(
        name="stargames", description=load_ruleset().description)
    assert load_ruleset("sauspiel-short").deck == "short"
    assert load_ruleset("sauspiel").tariff.base_rufspiel == 20
    assert "farbwenz" not in load_ruleset().contracts


def test_unknown_preset_lists_presets():
    with pytest.raises(RulesetError, match="presets: .*stargames"):
        load_ruleset("bogus")


def test_user_toml_file_extends_preset(tmp_path):
    p = tmp_path / "club.toml"
    p.write_text('extends = "sauspiel"\ncontracts = ["rufspiel", "solo", "farbwenz"]\n[tariff]\nschneider = 20\n')
    r = load_ruleset(str(p))
    assert r.name == "club" and r.tariff.base_rufspiel == 20 and r.tariff.schneider == 20
    assert "farbwenz" in r.contracts


def test_unknown_key_and_wrong_type_list_valid_keys(tmp_path):
    with pytest.raises(RulesetError, match="unknown key 'run_awy_min'; valid keys: .*run_away_min"):
        ruleset_from_dict({"run_awy_min": 3})
    with pytest.raises(RulesetError, match="tariff.laufende must be int.*valid keys"):
        ruleset_from_dict({"tariff": {"laufende": "1"}})
    with pytest.raises(RulesetError, match="must be bool"):
        ruleset_from_dict({"tout": 1})
    p = tmp_path / "bad.toml"
    p.write_text("deck = \n")
    with pytest.raises(RulesetError, match="not valid TOML"):
        load_ruleset(str(p))
    with pytest.raises(RulesetError, match="does not exist"):
        load_ruleset(str(tmp_path / "missing.toml"))


def test_impossible_values_rejected():
    with pytest.raises(RulesetError, match="deck"):
        Ruleset(deck="medium")
    with pytest.raises(RulesetError, match="unknown contract 'ramsch'"):
        ruleset_from_dict({"contracts": ["rufspiel", "ramsch"]})
    with pytest.raises(RulesetError, match="max_doublings"):
        Ruleset(max_doublings=3)


def test_toml_round_trip():
    r = load_ruleset("sauspiel-short").replace(run_away_min=3, schneider=15)
    import tomllib
    assert ruleset_from_dict(tomllib.loads(r.to_toml())) == r


def test_club_presets_are_rules_4():
    """RULES.md 4.4, preset `club`: sauspiel tariff, Bettel at 20, Klopfen, Ramsch at 10 with Durchmarsch at 91."""
    for name, deck, knock in (("club", "long", 4), ("club-short", "short", 3)):
        r = load_ruleset(name)
        assert r.deck == deck and r.knock_cards == knock and r.klopfen and not r.sie
        assert r.contracts == ("rufspiel", "solo", "wenz", "farbwenz", "bettel") and r.tout and r.max_doublings == 2
        assert r.tariff == load_ruleset("sauspiel").tariff
        assert r.all_pass == "ramsch" and r.ramsch_price == 10 and r.ramsch.durchmarsch == 91
        assert r.ramsch.jungfrau == "none" and r.bettel_price == 20 and not r.bettel.stichzwang
    # prices left out follow the Rufspiel base
    r = load_ruleset("sauspiel").replace(all_pass="stock")
    assert r.stock_price == r.bettel_price == r.ramsch_price == 20
    assert r.replace(base_rufspiel=5).stock_price == 5
    assert r.replace(ramsch={"price": 7}).ramsch == r.ramsch.__class__(price=7)


@pytest.mark.parametrize("table, message", [
    ({"ramsch": {"durchmarsch": 60}}, "ramsch.durchmarsch must be card points in 61..120"),
    ({"ramsch": {"durchmarsch": 121}}, "ramsch.durchmarsch must be card points in 61..120"),
    ({"ramsch": {"durchmarsch": "some"}}, "ramsch.durchmarsch must be one of 'all', 'none'"),
    ({"ramsch": {"jungfrau": "double"}}, "ramsch.jungfrau must be one of"),
    ({"ramsch": {"tie": "seat"}}, "ramsch.tie must be one of"),
    ({"ramsch": {"price": -1}}, "ramsch.price must be a non-negative integer"),
    ({"ramsch": {"winner": 1}}, "unknown key ramsch.'winner'; valid keys: price, tie, durchmarsch, jungfrau"),
    ({"all_pass": "stock", "contracts": ["solo", "wenz"]}, "needs the Rufspiel"),
    ({"all_pass": "bock"}, "all_pass must be one of 'throw-in', 'ramsch', 'stock'"),
    ({"stock": {"doubling": "never"}}, "stock.doubling must be one of"),
    ({"bettel": {"stichzwang": 1}}, "bettel.stichzwang must be bool"),
    ({"klopfen_cards": 9}, "klopfen_cards must be 0"),
    ({"contracts": ["rufspiel", "sie"]}, "Sie is enabled by sie = true"),
    ({"contracts": ["rufspiel", "rufspiel"]}, "listed twice"),
])
def test_impossible_club_rules_are_one_line_errors(table, message):
    with pytest.raises(RulesetError, match=message.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")) as e:
        ruleset_from_dict(table)
    assert "\n" not in str(e.value)


def test_club_toml_round_trip():
    import tomllib
    for r in (load_ruleset("club"), load_ruleset("club-short").replace(all_pass="stock", stock={"price": 30}),
              load_ruleset("sauspiel").replace(ramsch={"durchmarsch": "none", "jungfrau": "double-each"})):
        assert ruleset_from_dict(tomllib.loads(r.to_toml())) == r


def test_a_folder_named_like_a_preset_does_not_hide_it(tmp_path, monkeypatch):
    (tmp_path / "club").mkdir()  # e.g. `simkit run --rules club --out club`, then `--rules club` again
    monkeypatch.chdir(tmp_path)
    assert load_ruleset("club").name == "club"
