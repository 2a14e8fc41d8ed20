# CLOUDAWARE_FIND_OMPI: locate the installed Open MPI we build against.
# Order: --with-ompi=DIR (its bin/ompi_info), else ompi_info on PATH. We need ompi_info for the
# paths, mpicc for the public flags, and the devel headers (ompi/mca/coll/coll.h): a component
# is compiled against Open MPI's internal headers, which only the -dev package ships.
AC_DEFUN([CLOUDAWARE_FIND_OMPI], [
    AC_ARG_WITH([ompi],
        [AS_HELP_STRING([--with-ompi=DIR], [Open MPI installation prefix (default: ompi_info on PATH)])],
        [], [with_ompi=])
    AS_IF([test -n "$with_ompi"],
          [OMPI_INFO="$with_ompi/bin/ompi_info"; MPICC="$with_ompi/bin/mpicc"; MPIRUN="$with_ompi/bin/mpirun"],
          [AC_PATH_PROG([OMPI_INFO], [ompi_info])
           AC_PATH_PROG([MPICC], [mpicc])
           AC_PATH_PROG([MPIRUN], [mpirun])])
    AS_IF([test -z "$OMPI_INFO" || test ! -x "$OMPI_INFO"],
          [AC_MSG_ERROR([Open MPI's ompi_info not found. Install it (Debian: apt-get install openmpi-bin libopenmpi-dev) or pass --with-ompi=DIR])])
    AS_IF([test -z "$MPICC" || test ! -x "$MPICC"],
          [AC_MSG_ERROR([Open MPI's mpicc not found (Debian: apt-get install libopenmpi-dev) or pass --with-ompi=DIR])])
    AC_MSG_CHECKING([Open MPI version])
    OMPI_VERSION=`"$OMPI_INFO" --version 2>/dev/null | sed -n 's/^Open MPI v//p' | head -n 1`
    AC_MSG_RESULT([$OMPI_VERSION])
    # One source tree for two coll API generations; ompi/mca/coll/cloudaware/
    # coll_cloudaware_compat.h holds every difference. Anything else does not compile
    # (docs/ompi-versions.md: what main/6.0 changes and the plan).
    AS_CASE([$OMPI_VERSION],
        [4.1.*], [OMPI_SERIES=4.1],
        [5.0.*], [OMPI_SERIES=5.0],
        [AC_MSG_ERROR([coll/cloudaware builds against Open MPI 4.1.x and 5.0.x; found "$OMPI_VERSION" (docs/ompi-versions.md)])])
    OMPI_INCDIR=`"$OMPI_INFO" --path incdir 2>/dev/null | sed -n 's/^ *Incdir: *//p'`
    OMPI_PKGLIBDIR=`"$OMPI_INFO" --path pkglibdir 2>/dev/null | sed -n 's/^ *Pkglibdir: *//p'`
    OMPI_PREFIX=`"$OMPI_INFO" --path prefix 2>/dev/null | sed -n 's/^ *Prefix: *//p'`
    AC_MSG_CHECKING([for Open MPI devel headers (ompi/mca/coll/coll.h)])
    AS_IF([test -r "$OMPI_INCDIR/openmpi/ompi/mca/coll/coll.h"],
          [AC_MSG_RESULT([$OMPI_INCDIR/openmpi])],
          [AC_MSG_RESULT([no])
           AC_MSG_ERROR([Open MPI's internal headers are missing under $OMPI_INCDIR/openmpi (Debian: apt-get install libopenmpi-dev)])])
    OMPI_CPPFLAGS="`$MPICC --showme:compile` -I$OMPI_INCDIR/openmpi"
    OMPI_LDFLAGS="`$MPICC --showme:link`"
    # The internal headers include hwloc and libevent headers of Open MPI's external builds.
    PKG_CHECK_MODULES([HWLOC], [hwloc], [],
        [AC_MSG_ERROR([hwloc development files not found (Debian: apt-get install libhwloc-dev)])])
    PKG_CHECK_MODULES([LIBEVENT], [libevent], [],
        [AC_MSG_ERROR([libevent development files not found (Debian: apt-get install libevent-dev)])])
    OMPI_CPPFLAGS="$OMPI_CPPFLAGS $HWLOC_CFLAGS $LIBEVENT_CFLAGS"
    CLOUDAWARE_OMPI_SOURCE
    save_CPPFLAGS=$CPPFLAGS
    # The component's own stand-ins (compat/) count as present, as in its build; Open MPI 5's
    # headers include pmix.h (CLOUDAWARE_FIND_PMIX runs first).
    CPPFLAGS="$CPPFLAGS $OMPI_CPPFLAGS $PMIX_CFLAGS -I$srcdir/ompi/mca/coll/cloudaware/compat"
    AC_MSG_CHECKING([that Open MPI's coll framework headers compile])
    AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#include "ompi_config.h"
#include "ompi/mca/coll/coll.h"
#include "ompi/mca/coll/base/coll_base_util.h"
#include "ompi/op/op.h"]], [[mca_coll_base_module_t *m = 0; return m != 0;]])],
        [AC_MSG_RESULT([yes])],
        [AC_MSG_RESULT([no])
         missing=`sed -n 's/^.*fatal error: \(.*\): No such file or directory.*$/\1/p' config.log | tail -n 1`
         AS_IF([test -n "$missing" && test -z "$with_ompi_source"],
               [AC_MSG_ERROR([Open MPI $OMPI_VERSION's installed headers are incomplete ($missing is missing; Debian 13's libopenmpi-dev lacks some). Get the matching source tree and point configure at it:
    contrib/get-ompi-source /usr/local/src        (prints the directory it made)
    ./configure --with-ompi-source=/usr/local/src/openmpi-$OMPI_VERSION])],
               [AC_MSG_ERROR([cannot compile against Open MPI's coll.h with $OMPI_CPPFLAGS${missing:+ ($missing is missing)} (see config.log)])])])
    CPPFLAGS=$save_CPPFLAGS
    AC_SUBST([OMPI_INFO]) AC_SUBST([MPICC]) AC_SUBST([MPIRUN]) AC_SUBST([OMPI_VERSION]) AC_SUBST([OMPI_SERIES])
    AC_SUBST([OMPI_INCDIR]) AC_SUBST([OMPI_PKGLIBDIR]) AC_SUBST([OMPI_PREFIX])
    AC_SUBST([OMPI_CPPFLAGS]) AC_SUBST([OMPI_LDFLAGS])
])

# CLOUDAWARE_COMPONENT_DIR: where `make install` puts mca_coll_cloudaware.so. Default: the
# pkglibdir of the Open MPI found above, which it searches without any configuration.
AC_DEFUN([CLOUDAWARE_COMPONENT_DIR], [
    AC_ARG_WITH([component-dir],
        [AS_HELP_STRING([--with-component-dir=DIR],
            [install the component DSO into DIR, e.g. $HOME/.openmpi/components (default: Open MPI's pkglibdir)])],
        [componentdir=$withval], [componentdir=$OMPI_PKGLIBDIR])
    AS_IF([test -z "$componentdir"], [AC_MSG_ERROR([cannot tell Open MPI's pkglibdir; pass --with-component-dir=DIR])])
    AC_SUBST([componentdir])
])

# CLOUDAWARE_OMPI_SOURCE: --with-ompi-source=DIR, the source tree of exactly the installed Open MPI
# version, for internal headers a distribution's -dev package does not ship. Searched after the
# installed headers, so it only supplies what is missing (nothing is copied into this tree).
AC_DEFUN([CLOUDAWARE_OMPI_SOURCE], [
    AC_ARG_WITH([ompi-source],
        [AS_HELP_STRING([--with-ompi-source=DIR],
            [source tree of the installed Open MPI version, for internal headers its -dev package lacks (contrib/get-ompi-source fetches it)])],
        [], [with_ompi_source=])
    AS_IF([test "x$with_ompi_source" = xno], [with_ompi_source=])
    AS_IF([test -n "$with_ompi_source"], [
        AC_MSG_CHECKING([Open MPI source tree $with_ompi_source])
        AS_IF([test ! -r "$with_ompi_source/VERSION" || test ! -r "$with_ompi_source/ompi/mca/coll/coll.h"],
              [AC_MSG_RESULT([no])
               AC_MSG_ERROR([$with_ompi_source is not an Open MPI source tree (no VERSION or ompi/mca/coll/coll.h); contrib/get-ompi-source makes one])])
        src_version=`sed -n 's/^major=//p' "$with_ompi_source/VERSION"`.`sed -n 's/^minor=//p' "$with_ompi_source/VERSION"`.`sed -n 's/^release=//p' "$with_ompi_source/VERSION"`
        AS_IF([test "$src_version" != "$OMPI_VERSION"],
              [AC_MSG_RESULT([$src_version])
               AC_MSG_ERROR([$with_ompi_source is Open MPI $src_version, but the installed Open MPI is $OMPI_VERSION: the headers must be of the same version])])
        AC_MSG_RESULT([$src_version])
        with_ompi_source=`cd "$with_ompi_source" && pwd`
        OMPI_CPPFLAGS="$OMPI_CPPFLAGS -idirafter $with_ompi_source"
    ])
    AC_SUBST([OMPI_SOURCE], [$with_ompi_source])
])
