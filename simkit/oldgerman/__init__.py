"""The old German Schafkopf, "the sheep's head" (RULES.md section 3, seed 002).

Fixed partners (seats 0+2 against 1+3), the four Unter always the top trumps, a trump suit chosen per deal by the
longest hand, strokes (chalk marks) instead of money, parties to a whole sheep's head.

* :mod:`simkit.oldgerman.rules`: the ``old-german`` ruleset (:class:`OldGermanRuleset`) and the rule tables;
* :mod:`simkit.oldgerman.reference`: the plain-Python referee;
* :mod:`simkit.oldgerman.kernel`: the Numba kernels (deals and whole parties);
* :mod:`simkit.oldgerman.runner`: rows for ``simkit run --rules old-german`` (deals and parties);
* :mod:`simkit.oldgerman.sheep`: ``simkit sheep``, the head drawn stroke by stroke.

The design choices where RULES.md is silent are written down in docs/old-german.md.
"""

GAME = "old-german"
