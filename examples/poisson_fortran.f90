! examples/poisson_fortran.f90: nagare from Fortran. Builds the 7-point
! Laplacian on an n^3 grid (Dirichlet walls) in 1-based CSR, each MPI rank
! its own slab of z-planes (ng_matrix_create_distributed), solves A x = A*1
! with AMG-preconditioned CG, and checks the recomputed residual and the
! error against the exact solution x = 1. Exit status 1 on failure.
!   poisson_fortran [-n 32] [-solver pcg -precond amg -tol 1e-8 -device auto ...]
program poisson_fortran
  use nagare
  use, intrinsic :: iso_c_binding, only: c_double, c_int64_t
  implicit none
  type(ng_context) :: ctx
  type(ng_options) :: opts
  type(ng_matrix) :: a
  type(ng_vector) :: b, x, r
  type(ng_solver) :: s
  integer :: n, rank, nranks, k0, k1, i, j, k, its, st, nrows, p
  integer(c_int64_t) :: row, first, last, nn
  integer(c_int64_t), allocatable :: rowptr(:), col(:)
  real(c_double), allocatable :: val(:), xv(:)
  real(c_double) :: res, trueres, bnorm, err, setup, solve
  character(:), allocatable :: device

  call ng_options_create(opts)
  call ng_options_register(opts, 'n', '32', 'grid points per direction')
  call ng_options_set_from_string(opts, '-solver pcg -precond amg -tol 1e-8')
  call ng_options_set_from_command_line(opts)
  if (ng_options_help_requested(opts)) then
    call ng_options_print_help(opts)
    stop
  end if
  call ng_options_get_int(opts, 'n', n)
  call ng_options_get_string(opts, 'device', device)
  call ng_context_create(device, ctx)
  call ng_context_rank(ctx, rank, nranks)

  ! this rank's z-planes k0..k1 (1-based), rows first..last (1-based)
  k0 = int(int(n, c_int64_t) * rank / nranks) + 1
  k1 = int(int(n, c_int64_t) * (rank + 1) / nranks)
  nn = int(n, c_int64_t) * n
  first = (k0 - 1) * nn + 1
  last = k1 * nn
  nrows = int(last - first + 1)
  allocate (rowptr(nrows + 1), col(7 * nrows), val(7 * nrows))
  p = 1
  rowptr(1) = 1
  do k = k0, k1
    do j = 1, n
      do i = 1, n
        row = i + (j - 1) * int(n, c_int64_t) + (k - 1) * nn
        if (k > 1) call add(row - nn, -1d0)
        if (j > 1) call add(row - n, -1d0)
        if (i > 1) call add(row - 1, -1d0)
        call add(row, 6d0)
        if (i < n) call add(row + 1, -1d0)
        if (j < n) call add(row + n, -1d0)
        if (k < n) call add(row + nn, -1d0)
        rowptr(row - first + 2) = p
      end do
    end do
  end do
  call ng_matrix_create_distributed(ctx, nn * n, first, last, rowptr, col(1:p - 1), val(1:p - 1), a)

  ! b = A * 1, x = 0
  call ng_vector_create(a, b)
  call ng_vector_create(a, x)
  call ng_vector_create(a, r)
  call ng_vector_fill(x, 1d0)
  call ng_matrix_apply(a, x, b)
  call ng_vector_fill(x, 0d0)

  call ng_solver_create(ctx, opts, s)
  call ng_solver_set_operator(s, a)
  call ng_solver_solve(s, b, x, stat=st)
  call ng_solver_get_iterations(s, its)
  call ng_solver_get_residual(s, res)
  call ng_solver_get_times(s, setup, solve)

  ! independent residual and error
  call ng_matrix_apply(a, x, r)
  call ng_vector_axpy(-1d0, b, r)
  trueres = ng_vector_norm2(r)
  bnorm = ng_vector_norm2(b)
  allocate (xv(nrows))
  call ng_vector_get_values(x, xv)
  err = 0
  if (nrows > 0) err = maxval(abs(xv - 1d0))
  if (rank == 0) then
    write (*, '(a,i0,a,i0,a,i0,a)') 'poisson_fortran: ', n, '^3 unknowns on ', nranks, ' rank(s), ', &
      nrows, ' rows on rank 0'
    write (*, '(a,a)') 'device             : ', ng_context_describe(ctx)
    write (*, '(a,a)') 'status             : ', ng_status_name(st)
    write (*, '(a,i0)') 'iterations         : ', its
    write (*, '(a,es12.5,a,es12.5,a)') 'relative residual  : ', res, ' (solver) ', trueres / bnorm, ' (recomputed)'
    write (*, '(a,es12.5)') 'max error on rank 0: ', err
    write (*, '(a,f8.4,a,f8.4)') 'setup / solve s    : ', setup, ' / ', solve
  end if
  call ng_solver_destroy(s)
  call ng_vector_destroy(r)
  call ng_vector_destroy(x)
  call ng_vector_destroy(b)
  call ng_matrix_destroy(a)
  call ng_options_destroy(opts)
  call ng_context_destroy(ctx)
  ! the main program's allocatables live until exit unless freed (LSan in the
  ! sanitizer tree counts them as leaks)
  deallocate (rowptr, col, val)
  if (allocated(xv)) deallocate (xv)
  if (allocated(device)) deallocate (device)
  if (st /= NG_SUCCESS .or. trueres / bnorm > 1.05d-8 .or. err > 1d-5) then
    if (rank == 0) write (*, '(a)') 'FAILED'
    error stop 1
  end if
  if (rank == 0) write (*, '(a)') 'PASSED'

contains

  subroutine add(c, v)
    integer(c_int64_t), intent(in) :: c
    real(c_double), intent(in) :: v
    col(p) = c
    val(p) = v
    p = p + 1
  end subroutine

end program poisson_fortran
