# CLOUDAWARE_CXX17: the model core is C++17; fail early with a clear message when the compiler is older.
AC_DEFUN([CLOUDAWARE_CXX17], [
    AC_LANG_PUSH([C++])
    save_CXXFLAGS=$CXXFLAGS
    CXXFLAGS="$CXXFLAGS -std=c++17"
    AC_MSG_CHECKING([whether $CXX accepts -std=c++17])
    AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#include <optional>
#include <string_view>]], [[std::optional<int> o; std::string_view s("x"); return o ? 1 : (int)s.size() - 1;]])],
        [AC_MSG_RESULT([yes])],
        [AC_MSG_RESULT([no])
         AC_MSG_ERROR([a C++17 compiler is required (Debian: apt-get install g++)])])
    CXXFLAGS=$save_CXXFLAGS
    AC_LANG_POP([C++])
    AC_SUBST([CLOUDAWARE_CXXFLAGS], ["-std=c++17"])
])
