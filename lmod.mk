# lmod.mk: install-time extras (issue 34 items 6 and 8).
#  - The Lmod modulefile $(datadir)/modulefiles/nagare/$(VERSION).lua, written
#    by make install from nagare.lua.in with make's directories (DESTDIR and
#    directory overrides such as datadir=... are honoured), removed by make
#    uninstall ([@]NAME[@] in the sed patterns: config.status would replace
#    @NAME@ here). test/installcheck.sh loads it when Lmod is installed.
#  - make install with another prefix than configure's is refused at once
#    with the way out: libtool relinks libnagare_fortran and libnagare-petsc
#    for configure's libdir only, and the .pc files name configure's prefix.
EXTRA_DIST += nagare.lua.in
modulefiledir = $(datadir)/modulefiles/nagare
NG_CONFIGURED_PREFIX = @prefix@
if NG_FORTRAN
NG_LUA_FORTRAN = s|^[@]FORTRAN[@]||
else
NG_LUA_FORTRAN = /^[@]FORTRAN[@]/d
endif

install-data-local: install-modulefile
uninstall-local: uninstall-modulefile
install-modulefile:
	$(MKDIR_P) '$(DESTDIR)$(modulefiledir)'
	sed -e 's|[@]VERSION[@]|$(VERSION)|g' -e 's|[@]prefix[@]|$(prefix)|g' -e 's|[@]bindir[@]|$(bindir)|g' \
	  -e 's|[@]libdir[@]|$(libdir)|g' -e 's|[@]pkgconfigdir[@]|$(pkgconfigdir)|g' -e 's|[@]mandir[@]|$(mandir)|g' \
	  -e 's|[@]includedir[@]|$(includedir)|g' -e '$(NG_LUA_FORTRAN)' $(srcdir)/nagare.lua.in \
	  > '$(DESTDIR)$(modulefiledir)/$(VERSION).lua'
uninstall-modulefile:
	rm -f '$(DESTDIR)$(modulefiledir)/$(VERSION).lua'

# BUILT_SOURCES are made first by make all, check and install.
BUILT_SOURCES = ng-prefix-check
ng-prefix-check:
	@if test '$(prefix)' != '$(NG_CONFIGURED_PREFIX)'; then \
	  echo "error: configured with --prefix=$(NG_CONFIGURED_PREFIX), not $(prefix): libtool relinks the Fortran and PETSc" >&2; \
	  echo "  libraries for configure's prefix and the .pc files name it. Run ./configure --prefix=$(prefix) (same options)," >&2; \
	  echo "  then make && make install; or make install DESTDIR=DIR to stage the configured prefix under DIR." >&2; \
	  exit 1; \
	fi
.PHONY: install-modulefile uninstall-modulefile ng-prefix-check
