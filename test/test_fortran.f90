! test/test_fortran.f90: the Fortran bindings call by call on one rank:
! version and build queries, options (set, typed getters, errors through
! stat), a 1-based CSR with default-integer indices (ng_matrix_create_csr),
! sizes and ownership, vector operations, Matrix Market round trip, a
! preconditioner of its own (create, apply, update, describe), a solver with
! history, times and a monitor callback, and a value update. Exit status 1 on the first failure.
! The monitor callback's counter (a bind(c) module procedure).
module test_fortran_monitor
  use, intrinsic :: iso_c_binding, only: c_ptr, c_int, c_double
  implicit none
  integer :: calls = 0, last_iteration = -1
contains
  subroutine count_calls(s, iteration, rnorm, user_ctx) bind(c)
    type(c_ptr), value :: s, user_ctx
    integer(c_int), value :: iteration
    real(c_double), value :: rnorm
    if (iteration == calls .and. rnorm >= 0d0) last_iteration = iteration
    calls = calls + 1
  end subroutine
end module

program test_fortran
  use nagare
  use test_fortran_monitor
  use, intrinsic :: iso_c_binding, only: c_double, c_int64_t
  implicit none
  integer, parameter :: n = 50
  type(ng_context) :: ctx
  type(ng_options) :: opts
  type(ng_matrix) :: a, a2
  type(ng_vector) :: b, x, y
  type(ng_precond) :: p
  type(ng_solver) :: s
  integer :: rowptr(n + 1), col(3 * n), i, k, major, minor, patch, st, its, nl, rank, nranks, iv
  integer(c_int64_t) :: ng, nnz, first, last
  real(c_double) :: val(3 * n), xv(n), yv(n), rv, res, setup, solve, d
  real(c_double), allocatable :: hist(:)
  character(:), allocatable :: str
  logical :: flag
  integer :: fails = 0

  call ng_version(major, minor, patch)
  call expect(ng_version_string() /= '', 'version string')
  write (*, '(a,i0,a,i0,a,i0,a,l1,a,a)') 'nagare ', major, '.', minor, '.', patch, ', mpi ', ng_have_mpi(), &
    ', ', ng_version_string()
  flag = ng_have_cuda() .or. ng_have_hwloc() .or. ng_have_zlib()
  call expect(ng_gpu_count() >= 0 .and. (ng_have_cuda() .or. ng_gpu_count() == 0), 'gpu count')

  ! options: set, get, errors through stat
  call ng_options_create(opts)
  call ng_options_register(opts, 'my_count', '3', 'a program option')
  call ng_options_set_from_args(opts, [character(len=16) :: '-tol', '1e-10', '-solver', 'pcg', '-monitor'])
  call ng_options_set(opts, 'precond', 'jacobi')
  call ng_options_get_real(opts, 'tol', rv)
  call expect(abs(rv - 1d-10) < 1d-20, 'get_real tol')
  call ng_options_get_string(opts, 'solver', str)
  call expect(str == 'pcg', 'get_string solver')
  call ng_options_get_int(opts, 'my_count', iv)
  call expect(iv == 3, 'get_int my_count')
  call ng_options_get_bool(opts, 'monitor', flag)
  call expect(flag, 'get_bool monitor')
  call ng_options_set(opts, 'monitor', '0')
  call ng_options_set(opts, 'no_such_option', '1', stat=st)
  call expect(st == NG_ERR_ARGUMENT, 'unknown option gives NG_ERR_ARGUMENT')
  call expect(index(ng_last_error(), 'no_such_option') > 0, 'message names the option')
  call expect(ng_status_name(st) == 'NG_ERR_ARGUMENT', 'status name')
  call ng_error_clear()
  call expect(ng_last_error() == '', 'error cleared')
  call expect(.not. ng_options_help_requested(opts), 'no -help')

  call ng_context_create('cpu', ctx)
  call ng_context_rank(ctx, rank, nranks)
  call expect(.not. ng_context_on_gpu(ctx), 'cpu context')
  call ng_context_report_binding(ctx, str)
  write (*, '(a,a,a,a)') 'context: ', ng_context_describe(ctx), '; ', str

  ! 1D Laplacian + 1 on the diagonal, 1-based CSR with default integers
  k = 0
  rowptr(1) = 1
  do i = 1, n
    if (i > 1) call put(i - 1, -1d0)
    call put(i, 3d0)
    if (i < n) call put(i + 1, -1d0)
    rowptr(i + 1) = k + 1
  end do
  call ng_matrix_create_csr(ctx, n, n, rowptr, col(1:k), val(1:k), a)
  call ng_matrix_get_size(a, n_global=ng, n_local=nl, nnz_global=nnz)
  call expect(ng == n .and. nnz == k, 'get_size')
  call ng_matrix_get_ownership(a, first, last)
  if (nranks == 1) call expect(first == 1 .and. last == n, 'ownership 1-based')
  call ng_matrix_get_local_nnz(a, nnz)
  call ng_matrix_get_comm_info(a, n_local_rows=iv)
  call expect(iv == nl, 'comm info rows')
  call ng_matrix_set_format(a, 'csr')
  call expect(ng_matrix_format(a) == 'csr', 'format')

  ! vectors: y = A x with x = 1 (rows 1 and n: 2, others 1)
  call ng_vector_create(a, x)
  call ng_vector_create(a, y)
  call ng_vector_create(a, b)
  call ng_vector_get_size(x, iv)
  call expect(iv == nl, 'vector size')
  call ng_vector_fill(x, 1d0)
  call ng_matrix_apply(a, x, y)
  call ng_vector_get_values(y, yv)
  if (nranks == 1) call expect(yv(1) == 2d0 .and. yv(2) == 1d0 .and. yv(n) == 2d0, 'apply')
  call expect(abs(ng_vector_dot(x, x) - n) < 1d-12, 'dot')
  call ng_vector_copy(y, b)
  call ng_vector_axpy(-1d0, y, b)
  call expect(ng_vector_norm2(b) == 0d0, 'copy + axpy')
  do i = 1, nl
    xv(i) = i
  end do
  call ng_vector_set_values(b, xv(1:nl))

  ! Matrix Market round trip
  call ng_matrix_write_mtx(a, 'test_fortran_A.mtx')
  call ng_matrix_read_mtx(ctx, 'test_fortran_A.mtx', a2)
  call ng_matrix_get_size(a2, nnz_global=nnz)
  call expect(nnz == k, 'mtx round trip')
  call ng_matrix_destroy(a2)
  call ng_vector_write_mtx(b, 'test_fortran_b.mtx')
  call ng_vector_read_mtx(y, 'test_fortran_b.mtx')
  call ng_vector_axpy(-1d0, b, y)
  call expect(ng_vector_norm2(y) == 0d0, 'vector mtx round trip')

  ! a preconditioner of one's own
  call ng_precond_create(ctx, opts, a, p)
  call ng_precond_apply(p, b, y)
  call ng_vector_get_values(y, yv)
  call expect(abs(yv(1) - xv(1) / 3d0) < 1d-14, 'jacobi apply')
  call ng_precond_update(p, a)
  call ng_precond_describe(p, str)
  call expect(len(str) > 0, 'describe')
  call ng_precond_destroy(p)

  ! solver, then a value update (diagonal 3 -> 4) on the same operator
  call ng_solver_create(ctx, opts, s)
  call ng_solver_set_operator(s, a)
  call ng_solver_set_monitor(s, count_calls)
  call ng_vector_fill(x, 0d0)
  call ng_solver_solve(s, b, x)
  call ng_solver_get_iterations(s, its)
  call expect(calls == its + 1 .and. last_iteration == its, 'monitor called for iterations 0..its')
  call ng_solver_clear_monitor(s)
  call ng_solver_get_residual(s, res)
  call ng_solver_get_history(s, hist)
  call ng_solver_get_times(s, setup, solve)
  call expect(res <= 1d-10 .and. size(hist) == its + 1, 'solve, residual, history')
  write (*, '(a,i0,a,es10.3)') 'solve 1: iterations ', its, ', residual ', res
  where (val(1:k) == 3d0) val(1:k) = 4d0
  call ng_matrix_update_values(a, val(1:k))
  call ng_solver_set_operator(s, a)
  call ng_solver_solve(s, b, x, stat=st)
  call ng_solver_get_residual(s, res)
  call expect(st == NG_SUCCESS .and. res <= 1d-10, 'solve after update')
  call expect(calls == its + 1, 'no monitor calls after clear')
  call ng_matrix_apply(a, x, y)
  call ng_vector_axpy(-1d0, b, y)
  d = ng_vector_norm2(y) / ng_vector_norm2(b)
  call expect(d <= 2d-10, 'true residual after update')

  call ng_solver_destroy(s)
  call ng_vector_destroy(b)
  call ng_vector_destroy(x)
  call ng_vector_destroy(y)

  ! a singular (pure-Neumann) problem: b = 1 lies in the null space, so
  ! x = 0 without iterating, and all of b is reported removed
  call ng_matrix_generate(ctx, 'lap7:6:neumann', a2)
  call ng_vector_create(a2, b)
  call ng_vector_create(a2, x)
  call ng_vector_create(a2, y)
  call ng_vector_fill(b, 1d0)
  call ng_vector_fill(y, 2d0)
  call ng_solver_create(ctx, opts, s)
  call ng_solver_set_null_space(s, [y])
  call ng_solver_set_operator(s, a2)
  call ng_solver_solve(s, b, x, stat=st)
  call ng_solver_get_rhs_null_component(s, d)
  call expect(st == NG_SUCCESS .and. abs(d - 1d0) < 1d-12 .and. ng_vector_norm2(x) == 0d0, 'null space')
  call ng_solver_destroy(s)
  call ng_vector_destroy(b)
  call ng_vector_destroy(x)
  call ng_vector_destroy(y)
  call ng_matrix_destroy(a2)
  call ng_matrix_destroy(a)
  call ng_options_destroy(opts)
  call ng_context_destroy(ctx)
  ! the main program's allocatables are never freed by the runtime (LSan in the
  ! sanitizer tree reports them): release them here
  if (allocated(hist)) deallocate (hist)
  if (allocated(str)) deallocate (str)
  open (unit=10, file='test_fortran_A.mtx')
  close (10, status='delete')
  open (unit=10, file='test_fortran_b.mtx')
  close (10, status='delete')
  if (fails > 0) then
    write (*, '(i0,a)') fails, ' check(s) FAILED'
    error stop 1
  end if
  write (*, '(a)') 'all Fortran binding checks passed'

contains

  subroutine put(c, v)
    integer, intent(in) :: c
    real(c_double), intent(in) :: v
    k = k + 1
    col(k) = c
    val(k) = v
  end subroutine

  subroutine expect(ok, what)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    if (.not. ok) then
      write (*, '(a,a)') 'FAIL: ', what
      fails = fails + 1
    end if
  end subroutine

end program test_fortran
