"""The built-in ``people`` strategy: bids and plays like the people of the sauspiel online room.

* :mod:`.features`: what the model sees (bidding and play features), shared by training and play;
* :mod:`.model`: the strategy's ``bid``/``double``/``play`` (numba, called by the whole-deal kernel);
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
