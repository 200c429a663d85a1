"""The built-in ``people`` strategy: bids and plays like the people of the sauspiel online room.

* :mod:`.features`: what the model sees (bidding and play features), shared by training and play;
* :mod:`.model`: the strategy's ``bid``/``double``/``play`` (numba, called by the whole-deal kernel by address:
  :func:`natives`);
* :mod:`.weights`: the weights files (``weights/*.npz``, one per ruleset) and binding them to a run's ruleset;
* :mod:`.train`: fitting the model to recorded games (``simkit train people``).
"""

from simkit.strategies.people.model import (  # noqa: F401  (the strategy's interface, as the registry reads it)
    CONFIG_DOC,
    CONFIG_NAMES,
    DEFAULT_CONFIG,
    DESCRIPTION,
    USES_SCRATCH,
    bid,
    double,
    play,
)
from simkit.strategies.people.model import WORK_SIZE as NATIVE_WORK  # noqa: F401  (float64 words its entries need)


def natives() -> dict[int, int]:
    """What the whole-deal kernel calls by address for a people seat (simkit.strategies.natives): the model's bid
    and play, compiled (or loaded from the cache) when first asked for."""
    from simkit.strategies.natives import N_BID, N_PLAY
    from simkit.strategies.people.model import BID_KERNEL, PLAY_KERNEL

    return {N_BID: BID_KERNEL.address, N_PLAY: PLAY_KERNEL.address}
