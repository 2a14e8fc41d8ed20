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
    AS_CASE([$OMPI_VERSION],
        [4.1.*], [],
        [AC_MSG_WARN([coll/cloudaware is developed against Open MPI 4.1; $OMPI_VERSION is untested])])
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
    save_CPPFLAGS=$CPPFLAGS
    CPPFLAGS="$CPPFLAGS $OMPI_CPPFLAGS"
    AC_MSG_CHECKING([that Open MPI's coll framework header compiles])
    AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#include "ompi_config.h"
#include "ompi/mca/coll/coll.h"]], [[mca_coll_base_module_t *m = 0; return m != 0;]])],
        [AC_MSG_RESULT([yes])],
        [AC_MSG_RESULT([no])
         AC_MSG_ERROR([cannot compile against Open MPI's coll.h with $OMPI_CPPFLAGS (see config.log)])])
    CPPFLAGS=$save_CPPFLAGS
    AC_SUBST([OMPI_INFO]) AC_SUBST([MPICC]) AC_SUBST([MPIRUN]) AC_SUBST([OMPI_VERSION])
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
