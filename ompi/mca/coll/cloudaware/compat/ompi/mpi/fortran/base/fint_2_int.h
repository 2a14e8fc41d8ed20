/*
 * Stand-in for an Open MPI source-tree header that distributions do not install, but that the
 * installed ompi/op/op.h includes (for ompi_op_reduce's Fortran user-op path). Only the two
 * conversions op.h uses are defined. In Open MPI builds where a Fortran INTEGER is as wide as a
 * C int (Debian's and every common x86_64/aarch64 build; MPI_Fint is int in mpi.h) both are
 * plain casts; configure-free, so a mismatching build fails to compile here instead of
 * miscomputing.
 */
#ifndef CLOUDAWARE_COMPAT_FINT_2_INT_H
#define CLOUDAWARE_COMPAT_FINT_2_INT_H

#include "mpi.h"

_Static_assert(sizeof(MPI_Fint) == sizeof(int),
               "coll/cloudaware compat fint_2_int.h assumes MPI_Fint is a C int");

#define OMPI_INT_2_FINT(a) ((MPI_Fint) (a))
#define OMPI_FINT_2_INT(a) ((int) (a))

#endif
