# bench/bench.mk: sources and tests of this module
