# precond/precond.mk: sources and tests of this module
