# CLOUDAWARE_FIND_PMIX: calibration coordinates node leaders through PMIx (Put/Commit/Fence/Get).
# Open MPI 4.1 on Debian uses the external PMIx from libpmix-dev; we link the same library.
AC_DEFUN([CLOUDAWARE_FIND_PMIX], [
    PKG_CHECK_MODULES([PMIX], [pmix >= 3.0], [],
        [AC_MSG_ERROR([PMIx development files not found (Debian: apt-get install libpmix-dev)])])
    PMIX_VERSION=`$PKG_CONFIG --modversion pmix`
    AC_SUBST([PMIX_VERSION])
])

# CLOUDAWARE_FIND_CHECK: unit tests of the model core use the Check framework.
AC_DEFUN([CLOUDAWARE_FIND_CHECK], [
    PKG_CHECK_MODULES([CHECK], [check >= 0.10], [],
        [AC_MSG_ERROR([the Check unit test framework was not found (Debian: apt-get install check)])])
])
