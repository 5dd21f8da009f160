"""Private learners. Each module is one algorithm family; learners compose the mechanisms of
:mod:`privpac.mechanisms` (which charge the ledger and draw the noise) and never draw privacy
noise themselves."""
