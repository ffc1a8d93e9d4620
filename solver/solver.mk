# solver/solver.mk: sources and tests of this module
