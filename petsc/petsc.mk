# petsc/petsc.mk (filled below)
