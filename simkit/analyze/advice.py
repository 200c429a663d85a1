"""What a strategy would have played at each decision of a recorded game, seeing only what that seat saw.

The strategy's information state is built by the functions the whole-deal kernel uses during play
(simkit.engine.infostate), fed the record instead of the kernel's own choices, so a strategy cannot tell a
recorded game from one the kernel deals: the same ``info`` words, hand, legal cards, rule tables, params and
config. What a record does not hold is filled the way the kernel fills it:

* bids: the declarer's seat bid the contract played, every other seat passed (a record names no other bids);
* Kontra/Re: the record's ``kontra`` list (first entry Kontra, second Re); ``klopfen`` has no word in ``info``;
* the deal number (``info[I_DEAL]``) is the record's line number, and each seat's random stream is stream
  (seed, line, STREAM_STRATEGY + seat), ``seed`` being ADVICE_SEED unless asked otherwise (``simkit analyze
  --advice-seed``), so a randomised strategy's advice is reproducible, and another seed measures its noise;
* the strategy is asked only for cards (its bid and double functions are not called), so scratch words start at
  zero when play begins.
"""

from __future__ import annotations

import re

import numpy as np

from simkit.analyze.records import GameRecord
from simkit.cards import CARD_POINTS, format_card
from simkit.rules.contracts import RUFSPIEL

ADVICE_SEED = 0


def column_name(strategy: str) -> str:
    """The column prefix of a strategy's advice (``heuristic`` -> ``heuristic_card``; ``pkg.mod:Name`` ->
    ``pkg_mod_Name_card``)."""
    return re.sub(r"\W+", "_", strategy).strip("_")


class Advisor:
    """The cards one strategy would have played at every decision of one game (``card(seat, i)``: decision ``i``
    in play order)."""

    def __init__(self, strategy, game: GameRecord, seed: int = ADVICE_SEED):
        self.cards = advise(strategy, game, seed)

    def card(self, seat: int, i: int) -> int:
        return self.cards[i]


def advisors_for(game: GameRecord, strategies, seed: int = ADVICE_SEED) -> list[tuple[str, Advisor]]:
    from simkit.strategies import resolve

    return [(column_name(s), Advisor(resolve(s), game, seed)) for s in strategies]


def advise(strategy, game: GameRecord, seed: int = ADVICE_SEED) -> list[int]:
    """The strategy's card at each decision of ``game`` (the recorded cards are played, not the advice)."""
    from simkit.engine.batch import tables_for
    from simkit.strategies import StrategyError

    t = tables_for(game.opening.rules)
    config = strategy.config_for(game.opening.rules)  # with what it learned for the rules (the value table)
    config = config if len(config) else np.zeros(1)
    config = np.ascontiguousarray(config, np.float64)

    def ask(i, seat, hand, legal, info):
        choice = int(strategy.play(np.int64(hand), np.int64(legal), np.int64(seat), info, t.strength, t.eff_suit,
                                   t.params, config))
        if not 0 <= choice < 32 or not (legal >> choice) & 1:
            what = format_card(choice) if 0 <= choice < 32 else f"card {choice}"
            raise StrategyError(f"strategy '{strategy.name}' chose {what} in trick {i // 4 + 1} of game "
                                f"{game.game_id} (line {game.line}), which seat {seat} may not play",
                                strategy=strategy.name, seat=seat, decision="play", value=choice)
        return choice

    return walk(game, ask, seed)


def walk(game: GameRecord, ask, seed: int = ADVICE_SEED) -> list:
    """Walk the recorded play, calling ``ask(i, seat, hand, legal, info)`` at decision ``i`` with what that seat
    sees (its random stream in ``info[I_RNG]``, its scratch words kept between its calls); returns the answers.
    The recorded cards are played, whatever ``ask`` answers."""
    from simkit.engine.game import variant_code
    from simkit.engine.infostate import (
        info_bid,
        info_card,
        info_contract,
        info_end_trick,
        info_kontra,
        info_new_deal,
        info_re,
        info_start_play,
        info_start_trick,
        info_to_play,
    )
    from simkit.engine.rng import STREAM_STRATEGY, stream_state
    from simkit.reference import Game
    from simkit.strategies.api import INFO_SIZE, I_RNG, I_SCRATCH, N_SCRATCH, PASS, bid_code

    pos = game.opening
    rules = pos.rules
    c = pos.contract
    suit = c.suit if c.suit is not None else -1
    info = np.zeros(INFO_SIZE, np.int64)
    info_new_deal(info, game.line, rules.hand_size)
    for s in range(4):
        info_bid(info, s, bid_code(c.kind, suit, c.tout) if s == pos.declarer else PASS)
    info_contract(info, c.kind, suit, int(c.tout), -1 if pos.declarer is None else pos.declarer,  # (a Ramsch: none)
                  variant_code(c.kind, suit))
    kontra = game.record.get("kontra") or []
    if kontra:
        info_kontra(info, kontra[0])
    if len(kontra) > 1:
        info_re(info, kontra[1])
    info_start_play(info)

    rngs = [np.uint64(stream_state(seed, game.line, STREAM_STRATEGY + s)).view(np.int64) for s in range(4)]
    scratch = np.zeros((4, N_SCRATCH), np.int64)
    called = c.suit if c.kind == RUFSPIEL else -1
    ref = Game(rules, list(pos.hands), c, pos.declarer, pos.doublings, pos.tariff, pos.knocks)
    hands = [int(h) for h in pos.hands]
    played = 0
    out: list[int] = []
    for i, card in enumerate(game.plays):
        tno, k = divmod(i, 4)
        seat = ref.to_play
        if k == 0:
            info_start_trick(info, tno, seat)
            led = None
        info_to_play(info, k)
        legal = 0
        for x in ref.legal_cards():
            legal |= 1 << x
        info[I_RNG] = rngs[seat]
        info[I_SCRATCH:I_SCRATCH + N_SCRATCH] = scratch[seat]
        out.append(ask(i, seat, hands[seat], legal, info))
        rngs[seat] = info[I_RNG]
        scratch[seat] = info[I_SCRATCH:I_SCRATCH + N_SCRATCH]
        if k == 0:
            led = ref.eff(card)
        ref.play(card)
        hands[seat] &= ~(1 << card)
        played |= 1 << card
        info_card(info, tno, k, seat, card, played, card == ref.called_ace)
        if k == 3:
            _, cards, winner = ref.tricks[-1]
            info_end_trick(info, tno, winner, sum(CARD_POINTS[x] for x in cards), led == called)
    return out


def warm_up() -> None:
    """Compile (or load) the information-state functions before workers fork."""
    from simkit.engine import infostate as st

    info = np.zeros(128, np.int64)
    st.info_new_deal(info, 0, 8)
    st.info_bid(info, 0, -1)
    st.info_contract(info, 0, 0, 0, 0, 0)
    st.info_kontra(info, 1)
    st.info_re(info, 0)
    st.info_start_play(info)
    st.info_start_trick(info, 0, 0)
    st.info_to_play(info, 0)
    st.info_card(info, 0, 0, 0, 0, 1, False)
    st.info_end_trick(info, 0, 0, 0, False)
