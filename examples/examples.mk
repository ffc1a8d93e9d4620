# examples/examples.mk: the example programs and the nagare-solve CLI.
