! fortran/nagare.f90: Fortran 2003 bindings of nagare (ISO_C_BINDING).
!
!   use nagare
!   type(ng_context) :: ctx
!   call ng_context_create('auto', ctx)
!
! Every C call ng_xxx has a Fortran subroutine of the same name and argument
! order (queries that return a value in C are functions here). Conventions:
!  * Handles are derived types (ng_context, ng_options, ng_matrix, ng_vector,
!    ng_solver, ng_precond) holding the C pointer.
!  * Strings are ordinary Fortran character variables (trailing blanks are
!    trimmed); strings coming back are character(:), allocatable.
!  * The status is the optional last argument stat. When stat is present it
!    receives the ng_status (NG_SUCCESS = 0); when it is absent a failure
!    prints the status and ng_last_error() on error_unit and stops the
!    program (error stop). ng_solver_solve: pass stat to handle
!    NG_ERR_NOT_CONVERGED yourself.
!  * Index arrays you give are 1-based by default (Fortran CSR: rowptr(1) = 1,
!    column numbers from 1); pass base = 0 for C-style arrays. Row ranges are
!    first_row..last_row inclusive in the same numbering. Index arrays may be
!    default INTEGER or INTEGER(c_int64_t) (generic interfaces).
!  * Optional outputs (sizes, comm info) may be left out.
!  * Communicators: ng_context_create_comm takes a Fortran MPI communicator
!    (INTEGER from "use mpi", or comm%MPI_VAL from "use mpi_f08").
module nagare
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: error_unit, output_unit
  implicit none
  private

  ! ---- status codes (the C enum ng_status) -------------------------------
  enum, bind(c)
    enumerator :: NG_SUCCESS = 0, NG_ERR_ARGUMENT, NG_ERR_MEMORY, NG_ERR_DEVICE_MEMORY, NG_ERR_IO, &
                  NG_ERR_PARSE, NG_ERR_UNSUPPORTED, NG_ERR_NUMERIC, NG_ERR_BREAKDOWN, NG_ERR_DIVERGED, &
                  NG_ERR_NOT_CONVERGED, NG_ERR_DOES_NOT_FIT, NG_ERR_CUDA, NG_ERR_NO_DEVICE, NG_ERR_MPI, &
                  NG_ERR_INTERNAL
  end enum
  public :: NG_SUCCESS, NG_ERR_ARGUMENT, NG_ERR_MEMORY, NG_ERR_DEVICE_MEMORY, NG_ERR_IO, NG_ERR_PARSE, &
            NG_ERR_UNSUPPORTED, NG_ERR_NUMERIC, NG_ERR_BREAKDOWN, NG_ERR_DIVERGED, NG_ERR_NOT_CONVERGED, &
            NG_ERR_DOES_NOT_FIT, NG_ERR_CUDA, NG_ERR_NO_DEVICE, NG_ERR_MPI, NG_ERR_INTERNAL

  ! ---- handles -----------------------------------------------------------
  type, public :: ng_context
    type(c_ptr) :: ptr = c_null_ptr
  end type
  type, public :: ng_options
    type(c_ptr) :: ptr = c_null_ptr
  end type
  type, public :: ng_matrix
    type(c_ptr) :: ptr = c_null_ptr
  end type
  type, public :: ng_vector
    type(c_ptr) :: ptr = c_null_ptr
  end type
  type, public :: ng_solver
    type(c_ptr) :: ptr = c_null_ptr
  end type
  type, public :: ng_precond
    type(c_ptr) :: ptr = c_null_ptr
  end type

  ! ---- public procedures -------------------------------------------------
  public :: ng_last_error, ng_status_name, ng_error_clear, ng_version, ng_version_string
  public :: ng_have_cuda, ng_have_mpi, ng_have_hwloc, ng_have_zlib, ng_gpu_count
  public :: ng_context_create, ng_context_create_comm, ng_context_destroy, ng_context_on_gpu, ng_context_rank, &
            ng_context_describe, ng_context_report_binding, ng_context_bind_memory
  public :: ng_options_create, ng_options_destroy, ng_options_set_from_args, ng_options_set_from_command_line, &
            ng_options_set_from_string, ng_options_set, ng_options_get_string, ng_options_get_int, &
            ng_options_get_real, ng_options_get_bool, ng_options_register, ng_options_help_requested, &
            ng_options_print_help
  public :: ng_matrix_create_csr, ng_matrix_create_distributed, ng_matrix_read_mtx, ng_matrix_write_mtx, &
            ng_matrix_generate, ng_matrix_update_values, ng_matrix_get_size, ng_matrix_get_local_nnz, &
            ng_matrix_get_ownership, ng_matrix_set_format, ng_matrix_format, ng_matrix_apply, &
            ng_matrix_get_comm_info, ng_matrix_destroy
  public :: ng_vector_create, ng_vector_destroy, ng_vector_get_size, ng_vector_set_values, ng_vector_get_values, &
            ng_vector_fill, ng_vector_copy, ng_vector_axpy, ng_vector_dot, ng_vector_norm2, ng_vector_read_mtx, &
            ng_vector_write_mtx
  public :: ng_precond_create, ng_precond_update, ng_precond_apply, ng_precond_destroy, ng_precond_describe
  public :: ng_solver_create, ng_solver_set_operator, ng_solver_solve, ng_solver_get_iterations, &
            ng_solver_get_residual, ng_solver_get_history, ng_solver_get_times, ng_solver_destroy, &
            ng_solver_get_precond_comm_seconds, ng_context_set_transport, ng_context_get_transport, &
            ng_matrix_get_transport, ng_solver_set_monitor, ng_solver_clear_monitor, &
            ng_solver_set_null_space, ng_solver_get_rhs_null_component
  public :: ng_monitor_fn

  ! The monitor callback (ng_solver_set_monitor): a bind(c) subroutine of
  ! this interface, called on every rank with iteration 0, 1, ... and the
  ! residual norm; s is the solver's C handle, user_ctx what was given
  ! (c_loc of the caller's data, or c_null_ptr).
  abstract interface
    subroutine ng_monitor_fn(s, iteration, rnorm, user_ctx) bind(c)
      import :: c_ptr, c_int, c_double
      type(c_ptr), value :: s, user_ctx
      integer(c_int), value :: iteration
      real(c_double), value :: rnorm
    end subroutine
  end interface

  interface ng_matrix_create_csr
    module procedure ng_matrix_create_csr_i4, ng_matrix_create_csr_i8
  end interface
  interface ng_matrix_create_distributed
    module procedure ng_matrix_create_distributed_i4, ng_matrix_create_distributed_i8
  end interface
  interface ng_matrix_get_ownership
    module procedure ng_matrix_get_ownership_i4, ng_matrix_get_ownership_i8
  end interface

  ! ---- the C functions ---------------------------------------------------
  interface
    function c_strlen(s) bind(c, name='strlen')
      import :: c_ptr, c_size_t
      type(c_ptr), value :: s
      integer(c_size_t) :: c_strlen
    end function
    function c_fflush(f) bind(c, name='fflush')
      import :: c_ptr, c_int
      type(c_ptr), value :: f
      integer(c_int) :: c_fflush
    end function
    function c_ng_last_error() bind(c, name='ng_last_error')
      import :: c_ptr
      type(c_ptr) :: c_ng_last_error
    end function
    function c_ng_status_name(s) bind(c, name='ng_status_name')
      import :: c_ptr, c_int
      integer(c_int), value :: s
      type(c_ptr) :: c_ng_status_name
    end function
    subroutine c_ng_error_clear() bind(c, name='ng_error_clear')
    end subroutine
    function c_ng_version(major, minor, patch) bind(c, name='ng_version')
      import :: c_int
      integer(c_int) :: major, minor, patch
      integer(c_int) :: c_ng_version
    end function
    function c_ng_version_string() bind(c, name='ng_version_string')
      import :: c_ptr
      type(c_ptr) :: c_ng_version_string
    end function
    function c_ng_have_cuda() bind(c, name='ng_have_cuda')
      import :: c_int
      integer(c_int) :: c_ng_have_cuda
    end function
    function c_ng_have_mpi() bind(c, name='ng_have_mpi')
      import :: c_int
      integer(c_int) :: c_ng_have_mpi
    end function
    function c_ng_have_hwloc() bind(c, name='ng_have_hwloc')
      import :: c_int
      integer(c_int) :: c_ng_have_hwloc
    end function
    function c_ng_have_zlib() bind(c, name='ng_have_zlib')
      import :: c_int
      integer(c_int) :: c_ng_have_zlib
    end function
    function c_ng_gpu_count() bind(c, name='ng_gpu_count')
      import :: c_int
      integer(c_int) :: c_ng_gpu_count
    end function

    ! context
    function c_ng_context_create(resource, ctx) bind(c, name='ng_context_create')
      import :: c_ptr, c_char, c_int
      character(kind=c_char), dimension(*) :: resource
      type(c_ptr) :: ctx
      integer(c_int) :: c_ng_context_create
    end function
    function c_ng_fortran_context_create_comm(resource, fcomm, ctx) bind(c, name='ng_fortran_context_create_comm')
      import :: c_ptr, c_char, c_int
      character(kind=c_char), dimension(*) :: resource
      integer(c_int), value :: fcomm
      type(c_ptr) :: ctx
      integer(c_int) :: c_ng_fortran_context_create_comm
    end function
    function c_ng_context_destroy(ctx) bind(c, name='ng_context_destroy')
      import :: c_ptr, c_int
      type(c_ptr), value :: ctx
      integer(c_int) :: c_ng_context_destroy
    end function
    function c_ng_context_on_gpu(ctx, on_gpu) bind(c, name='ng_context_on_gpu')
      import :: c_ptr, c_int
      type(c_ptr), value :: ctx
      integer(c_int) :: on_gpu
      integer(c_int) :: c_ng_context_on_gpu
    end function
    function c_ng_context_rank(ctx, rank, size) bind(c, name='ng_context_rank')
      import :: c_ptr, c_int
      type(c_ptr), value :: ctx
      integer(c_int) :: rank, size
      integer(c_int) :: c_ng_context_rank
    end function
    function c_ng_context_describe(ctx) bind(c, name='ng_context_describe')
      import :: c_ptr
      type(c_ptr), value :: ctx
      type(c_ptr) :: c_ng_context_describe
    end function
    function c_ng_context_report_binding(ctx, buf, len) bind(c, name='ng_context_report_binding')
      import :: c_ptr, c_char, c_size_t, c_int
      type(c_ptr), value :: ctx
      character(kind=c_char), dimension(*) :: buf
      integer(c_size_t), value :: len
      integer(c_int) :: c_ng_context_report_binding
    end function
    function c_ng_context_bind_memory(ctx) bind(c, name='ng_context_bind_memory')
      import :: c_ptr, c_int
      type(c_ptr), value :: ctx
      integer(c_int) :: c_ng_context_bind_memory
    end function

    ! options
    function c_ng_options_create(opts) bind(c, name='ng_options_create')
      import :: c_ptr, c_int
      type(c_ptr) :: opts
      integer(c_int) :: c_ng_options_create
    end function
    function c_ng_options_destroy(opts) bind(c, name='ng_options_destroy')
      import :: c_ptr, c_int
      type(c_ptr), value :: opts
      integer(c_int) :: c_ng_options_destroy
    end function
    function c_ng_options_set_from_args(opts, argc, argv, remove) bind(c, name='ng_options_set_from_args')
      import :: c_ptr, c_int
      type(c_ptr), value :: opts
      integer(c_int) :: argc
      type(c_ptr), dimension(*) :: argv
      integer(c_int), value :: remove
      integer(c_int) :: c_ng_options_set_from_args
    end function
    function c_ng_options_set_from_string(opts, s) bind(c, name='ng_options_set_from_string')
      import :: c_ptr, c_char, c_int
      type(c_ptr), value :: opts
      character(kind=c_char), dimension(*) :: s
      integer(c_int) :: c_ng_options_set_from_string
    end function
    function c_ng_options_set(opts, name, value) bind(c, name='ng_options_set')
      import :: c_ptr, c_char, c_int
      type(c_ptr), value :: opts
      character(kind=c_char), dimension(*) :: name, value
      integer(c_int) :: c_ng_options_set
    end function
    function c_ng_options_get_string(opts, name, value) bind(c, name='ng_options_get_string')
      import :: c_ptr, c_char, c_int
      type(c_ptr), value :: opts
      character(kind=c_char), dimension(*) :: name
      type(c_ptr) :: value
      integer(c_int) :: c_ng_options_get_string
    end function
    function c_ng_options_get_int(opts, name, value) bind(c, name='ng_options_get_int')
      import :: c_ptr, c_char, c_int
      type(c_ptr), value :: opts
      character(kind=c_char), dimension(*) :: name
      integer(c_int) :: value
      integer(c_int) :: c_ng_options_get_int
    end function
    function c_ng_options_get_real(opts, name, value) bind(c, name='ng_options_get_real')
      import :: c_ptr, c_char, c_int, c_double
      type(c_ptr), value :: opts
      character(kind=c_char), dimension(*) :: name
      real(c_double) :: value
      integer(c_int) :: c_ng_options_get_real
    end function
    function c_ng_options_get_bool(opts, name, value) bind(c, name='ng_options_get_bool')
      import :: c_ptr, c_char, c_int
      type(c_ptr), value :: opts
      character(kind=c_char), dimension(*) :: name
      integer(c_int) :: value
      integer(c_int) :: c_ng_options_get_bool
    end function
    function c_ng_options_register(opts, name, def, help) bind(c, name='ng_options_register')
      import :: c_ptr, c_char, c_int
      type(c_ptr), value :: opts
      character(kind=c_char), dimension(*) :: name, def, help
      integer(c_int) :: c_ng_options_register
    end function
    function c_ng_options_help_requested(opts) bind(c, name='ng_options_help_requested')
      import :: c_ptr, c_int
      type(c_ptr), value :: opts
      integer(c_int) :: c_ng_options_help_requested
    end function
    function c_ng_options_print_help(opts, file) bind(c, name='ng_options_print_help')
      import :: c_ptr, c_int
      type(c_ptr), value :: opts, file
      integer(c_int) :: c_ng_options_print_help
    end function

    ! matrices
    function c_ng_matrix_create_csr(ctx, nrows, ncols, rowptr, col, val, a) bind(c, name='ng_matrix_create_csr')
      import :: c_ptr, c_int, c_int32_t, c_int64_t, c_double
      type(c_ptr), value :: ctx
      integer(c_int32_t), value :: nrows, ncols
      integer(c_int64_t), dimension(*) :: rowptr
      integer(c_int32_t), dimension(*) :: col
      real(c_double), dimension(*) :: val
      type(c_ptr) :: a
      integer(c_int) :: c_ng_matrix_create_csr
    end function
    function c_ng_matrix_create_distributed(ctx, n_global, row_begin, row_end, rowptr, gcol, val, a) &
        bind(c, name='ng_matrix_create_distributed')
      import :: c_ptr, c_int, c_int64_t, c_double
      type(c_ptr), value :: ctx
      integer(c_int64_t), value :: n_global, row_begin, row_end
      integer(c_int64_t), dimension(*) :: rowptr, gcol
      real(c_double), dimension(*) :: val
      type(c_ptr) :: a
      integer(c_int) :: c_ng_matrix_create_distributed
    end function
    function c_ng_matrix_read_mtx(ctx, path, a) bind(c, name='ng_matrix_read_mtx')
      import :: c_ptr, c_char, c_int
      type(c_ptr), value :: ctx
      character(kind=c_char), dimension(*) :: path
      type(c_ptr) :: a
      integer(c_int) :: c_ng_matrix_read_mtx
    end function
    function c_ng_matrix_write_mtx(a, path) bind(c, name='ng_matrix_write_mtx')
      import :: c_ptr, c_char, c_int
      type(c_ptr), value :: a
      character(kind=c_char), dimension(*) :: path
      integer(c_int) :: c_ng_matrix_write_mtx
    end function
    function c_ng_matrix_generate(ctx, spec, a, b) bind(c, name='ng_matrix_generate')
      import :: c_ptr, c_char, c_int
      type(c_ptr), value :: ctx
      character(kind=c_char), dimension(*) :: spec
      type(c_ptr) :: a
      type(c_ptr), value :: b ! ng_vector* or NULL
      integer(c_int) :: c_ng_matrix_generate
    end function
    function c_ng_matrix_update_values(a, val) bind(c, name='ng_matrix_update_values')
      import :: c_ptr, c_int, c_double
      type(c_ptr), value :: a
      real(c_double), dimension(*) :: val
      integer(c_int) :: c_ng_matrix_update_values
    end function
    function c_ng_matrix_get_size(a, n_global, n_local, nnz_global) bind(c, name='ng_matrix_get_size')
      import :: c_ptr, c_int, c_int32_t, c_int64_t
      type(c_ptr), value :: a
      integer(c_int64_t) :: n_global, nnz_global
      integer(c_int32_t) :: n_local
      integer(c_int) :: c_ng_matrix_get_size
    end function
    function c_ng_matrix_get_local_nnz(a, nnz) bind(c, name='ng_matrix_get_local_nnz')
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: a
      integer(c_int64_t) :: nnz
      integer(c_int) :: c_ng_matrix_get_local_nnz
    end function
    function c_ng_matrix_get_ownership(a, row_begin, row_end) bind(c, name='ng_matrix_get_ownership')
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: a
      integer(c_int64_t) :: row_begin, row_end
      integer(c_int) :: c_ng_matrix_get_ownership
    end function
    function c_ng_matrix_set_format(a, format) bind(c, name='ng_matrix_set_format')
      import :: c_ptr, c_char, c_int
      type(c_ptr), value :: a
      character(kind=c_char), dimension(*) :: format
      integer(c_int) :: c_ng_matrix_set_format
    end function
    function c_ng_matrix_format(a) bind(c, name='ng_matrix_format')
      import :: c_ptr
      type(c_ptr), value :: a
      type(c_ptr) :: c_ng_matrix_format
    end function
    function c_ng_matrix_apply(a, x, y) bind(c, name='ng_matrix_apply')
      import :: c_ptr, c_int
      type(c_ptr), value :: a, x, y
      integer(c_int) :: c_ng_matrix_apply
    end function
    function c_ng_matrix_get_comm_info(a, n_local_rows, n_halo, n_neighbors, comm_seconds) &
        bind(c, name='ng_matrix_get_comm_info')
      import :: c_ptr, c_int, c_int32_t, c_double
      type(c_ptr), value :: a
      integer(c_int32_t) :: n_local_rows, n_halo
      integer(c_int) :: n_neighbors
      real(c_double) :: comm_seconds
      integer(c_int) :: c_ng_matrix_get_comm_info
    end function
    function c_ng_matrix_destroy(a) bind(c, name='ng_matrix_destroy')
      import :: c_ptr, c_int
      type(c_ptr), value :: a
      integer(c_int) :: c_ng_matrix_destroy
    end function

    ! vectors
    function c_ng_vector_create(a, v) bind(c, name='ng_vector_create')
      import :: c_ptr, c_int
      type(c_ptr), value :: a
      type(c_ptr) :: v
      integer(c_int) :: c_ng_vector_create
    end function
    function c_ng_vector_destroy(v) bind(c, name='ng_vector_destroy')
      import :: c_ptr, c_int
      type(c_ptr), value :: v
      integer(c_int) :: c_ng_vector_destroy
    end function
    function c_ng_vector_get_size(v, n_local) bind(c, name='ng_vector_get_size')
      import :: c_ptr, c_int, c_int32_t
      type(c_ptr), value :: v
      integer(c_int32_t) :: n_local
      integer(c_int) :: c_ng_vector_get_size
    end function
    function c_ng_vector_set_values(v, values) bind(c, name='ng_vector_set_values')
      import :: c_ptr, c_int, c_double
      type(c_ptr), value :: v
      real(c_double), dimension(*) :: values
      integer(c_int) :: c_ng_vector_set_values
    end function
    function c_ng_vector_get_values(v, values) bind(c, name='ng_vector_get_values')
      import :: c_ptr, c_int, c_double
      type(c_ptr), value :: v
      real(c_double), dimension(*) :: values
      integer(c_int) :: c_ng_vector_get_values
    end function
    function c_ng_vector_fill(v, value) bind(c, name='ng_vector_fill')
      import :: c_ptr, c_int, c_double
      type(c_ptr), value :: v
      real(c_double), value :: value
      integer(c_int) :: c_ng_vector_fill
    end function
    function c_ng_vector_copy(src, dst) bind(c, name='ng_vector_copy')
      import :: c_ptr, c_int
      type(c_ptr), value :: src, dst
      integer(c_int) :: c_ng_vector_copy
    end function
    function c_ng_vector_axpy(alpha, x, y) bind(c, name='ng_vector_axpy')
      import :: c_ptr, c_int, c_double
      real(c_double), value :: alpha
      type(c_ptr), value :: x, y
      integer(c_int) :: c_ng_vector_axpy
    end function
    function c_ng_vector_dot(x, y, result) bind(c, name='ng_vector_dot')
      import :: c_ptr, c_int, c_double
      type(c_ptr), value :: x, y
      real(c_double) :: result
      integer(c_int) :: c_ng_vector_dot
    end function
    function c_ng_vector_norm2(x, result) bind(c, name='ng_vector_norm2')
      import :: c_ptr, c_int, c_double
      type(c_ptr), value :: x
      real(c_double) :: result
      integer(c_int) :: c_ng_vector_norm2
    end function
    function c_ng_vector_read_mtx(v, path) bind(c, name='ng_vector_read_mtx')
      import :: c_ptr, c_char, c_int
      type(c_ptr), value :: v
      character(kind=c_char), dimension(*) :: path
      integer(c_int) :: c_ng_vector_read_mtx
    end function
    function c_ng_vector_write_mtx(v, path) bind(c, name='ng_vector_write_mtx')
      import :: c_ptr, c_char, c_int
      type(c_ptr), value :: v
      character(kind=c_char), dimension(*) :: path
      integer(c_int) :: c_ng_vector_write_mtx
    end function

    ! preconditioners
    function c_ng_precond_create(ctx, opts, a, p) bind(c, name='ng_precond_create')
      import :: c_ptr, c_int
      type(c_ptr), value :: ctx, opts, a
      type(c_ptr) :: p
      integer(c_int) :: c_ng_precond_create
    end function
    function c_ng_precond_update(p, a) bind(c, name='ng_precond_update')
      import :: c_ptr, c_int
      type(c_ptr), value :: p, a
      integer(c_int) :: c_ng_precond_update
    end function
    function c_ng_precond_apply(p, r, z) bind(c, name='ng_precond_apply')
      import :: c_ptr, c_int
      type(c_ptr), value :: p, r, z
      integer(c_int) :: c_ng_precond_apply
    end function
    function c_ng_precond_destroy(p) bind(c, name='ng_precond_destroy')
      import :: c_ptr, c_int
      type(c_ptr), value :: p
      integer(c_int) :: c_ng_precond_destroy
    end function
    function c_ng_precond_describe(p, buf, len) bind(c, name='ng_precond_describe')
      import :: c_ptr, c_char, c_size_t, c_int
      type(c_ptr), value :: p
      character(kind=c_char), dimension(*) :: buf
      integer(c_size_t), value :: len
      integer(c_int) :: c_ng_precond_describe
    end function

    ! solvers
    function c_ng_solver_create(ctx, opts, s) bind(c, name='ng_solver_create')
      import :: c_ptr, c_int
      type(c_ptr), value :: ctx, opts
      type(c_ptr) :: s
      integer(c_int) :: c_ng_solver_create
    end function
    function c_ng_solver_set_operator(s, a) bind(c, name='ng_solver_set_operator')
      import :: c_ptr, c_int
      type(c_ptr), value :: s, a
      integer(c_int) :: c_ng_solver_set_operator
    end function
    function c_ng_solver_solve(s, b, x) bind(c, name='ng_solver_solve')
      import :: c_ptr, c_int
      type(c_ptr), value :: s, b, x
      integer(c_int) :: c_ng_solver_solve
    end function
    function c_ng_solver_get_iterations(s, its) bind(c, name='ng_solver_get_iterations')
      import :: c_ptr, c_int
      type(c_ptr), value :: s
      integer(c_int) :: its
      integer(c_int) :: c_ng_solver_get_iterations
    end function
    function c_ng_solver_get_residual(s, res) bind(c, name='ng_solver_get_residual')
      import :: c_ptr, c_int, c_double
      type(c_ptr), value :: s
      real(c_double) :: res
      integer(c_int) :: c_ng_solver_get_residual
    end function
    function c_ng_solver_get_history(s, history, length) bind(c, name='ng_solver_get_history')
      import :: c_ptr, c_int
      type(c_ptr), value :: s
      type(c_ptr) :: history
      integer(c_int) :: length
      integer(c_int) :: c_ng_solver_get_history
    end function
    function c_ng_solver_get_times(s, setup, solve) bind(c, name='ng_solver_get_times')
      import :: c_ptr, c_int, c_double
      type(c_ptr), value :: s
      real(c_double) :: setup, solve
      integer(c_int) :: c_ng_solver_get_times
    end function
    function c_ng_solver_get_precond_comm_seconds(s, seconds) bind(c, name='ng_solver_get_precond_comm_seconds')
      import :: c_ptr, c_int, c_double
      type(c_ptr), value :: s
      real(c_double) :: seconds
      integer(c_int) :: c_ng_solver_get_precond_comm_seconds
    end function
    function c_ng_solver_set_null_space(s, nvec, vecs) bind(c, name='ng_solver_set_null_space')
      import :: c_ptr, c_int
      type(c_ptr), value :: s
      integer(c_int), value :: nvec
      type(c_ptr) :: vecs(*)
      integer(c_int) :: c_ng_solver_set_null_space
    end function
    function c_ng_solver_get_rhs_null_component(s, rel) bind(c, name='ng_solver_get_rhs_null_component')
      import :: c_ptr, c_int, c_double
      type(c_ptr), value :: s
      real(c_double) :: rel
      integer(c_int) :: c_ng_solver_get_rhs_null_component
    end function
    function c_ng_context_set_transport(ctx, name) bind(c, name='ng_context_set_transport')
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: ctx
      character(kind=c_char), dimension(*) :: name
      integer(c_int) :: c_ng_context_set_transport
    end function
    function c_ng_context_get_transport(ctx) bind(c, name='ng_context_get_transport')
      import :: c_ptr
      type(c_ptr), value :: ctx
      type(c_ptr) :: c_ng_context_get_transport
    end function
    function c_ng_matrix_get_transport(a, buf, len) bind(c, name='ng_matrix_get_transport')
      import :: c_ptr, c_char, c_size_t, c_int
      type(c_ptr), value :: a
      character(kind=c_char), dimension(*) :: buf
      integer(c_size_t), value :: len
      integer(c_int) :: c_ng_matrix_get_transport
    end function
    function c_ng_solver_set_monitor(s, fn, user_ctx) bind(c, name='ng_solver_set_monitor')
      import :: c_ptr, c_funptr, c_int
      type(c_ptr), value :: s, user_ctx
      type(c_funptr), value :: fn
      integer(c_int) :: c_ng_solver_set_monitor
    end function
    function c_ng_solver_destroy(s) bind(c, name='ng_solver_destroy')
      import :: c_ptr, c_int
      type(c_ptr), value :: s
      integer(c_int) :: c_ng_solver_destroy
    end function
  end interface

contains

  ! ---- helpers -------------------------------------------------------------
  ! Fortran string -> NUL-terminated C string (trailing blanks trimmed).
  pure function c_str(s) result(cs)
    character(*), intent(in) :: s
    character(kind=c_char, len=:), allocatable :: cs
    cs = trim(s)//c_null_char
  end function

  ! C string -> Fortran string ("" for NULL).
  function f_str(p) result(s)
    type(c_ptr), intent(in) :: p
    character(:), allocatable :: s
    character(kind=c_char), pointer :: a(:)
    integer :: i, n
    if (.not. c_associated(p)) then
      s = ''
      return
    end if
    n = int(c_strlen(p))
    call c_f_pointer(p, a, [n])
    allocate (character(len=n) :: s)
    do i = 1, n
      s(i:i) = a(i)
    end do
  end function

  ! NUL-terminated buffer -> Fortran string.
  function buf_str(buf) result(s)
    character(kind=c_char), intent(in) :: buf(:)
    character(:), allocatable :: s
    integer :: i, n
    n = 0
    do while (n < size(buf))
      if (buf(n + 1) == c_null_char) exit
      n = n + 1
    end do
    allocate (character(len=n) :: s)
    do i = 1, n
      s(i:i) = buf(i)
    end do
  end function

  ! The status to stat, or stop with the message when stat is absent.
  subroutine check(st, where, stat)
    integer(c_int), intent(in) :: st
    character(*), intent(in) :: where
    integer, intent(out), optional :: stat
    if (present(stat)) then
      stat = int(st)
    else if (st /= NG_SUCCESS) then
      flush (output_unit)
      write (error_unit, '(a)') 'nagare: '//where//': '//ng_status_name(int(st))//': '//ng_last_error()
      error stop 1
    end if
  end subroutine

  integer function base_of(base)
    integer, intent(in), optional :: base
    base_of = 1
    if (present(base)) base_of = base
  end function

  ! ---- status, version, build ------------------------------------------
  function ng_last_error() result(s)
    character(:), allocatable :: s
    s = f_str(c_ng_last_error())
  end function

  function ng_status_name(st) result(s)
    integer, intent(in) :: st
    character(:), allocatable :: s
    s = f_str(c_ng_status_name(int(st, c_int)))
  end function

  subroutine ng_error_clear()
    call c_ng_error_clear()
  end subroutine

  subroutine ng_version(major, minor, patch, stat)
    integer, intent(out) :: major, minor, patch
    integer, intent(out), optional :: stat
    integer(c_int) :: a, b, c
    call check(c_ng_version(a, b, c), 'ng_version', stat)
    major = a; minor = b; patch = c
  end subroutine

  function ng_version_string() result(s)
    character(:), allocatable :: s
    s = f_str(c_ng_version_string())
  end function

  logical function ng_have_cuda()
    ng_have_cuda = c_ng_have_cuda() /= 0
  end function
  logical function ng_have_mpi()
    ng_have_mpi = c_ng_have_mpi() /= 0
  end function
  logical function ng_have_hwloc()
    ng_have_hwloc = c_ng_have_hwloc() /= 0
  end function
  logical function ng_have_zlib()
    ng_have_zlib = c_ng_have_zlib() /= 0
  end function
  ! GPUs the CUDA runtime sees now (0 without CUDA, driver or device)
  integer function ng_gpu_count()
    ng_gpu_count = int(c_ng_gpu_count())
  end function

  ! ---- context -------------------------------------------------------------
  ! resource: 'auto', 'cpu' or 'gpu'
  subroutine ng_context_create(resource, ctx, stat)
    character(*), intent(in) :: resource
    type(ng_context), intent(out) :: ctx
    integer, intent(out), optional :: stat
    call check(c_ng_context_create(c_str(resource), ctx%ptr), 'ng_context_create', stat)
  end subroutine

  ! comm: a Fortran MPI communicator (INTEGER; comm%MPI_VAL with mpi_f08)
  subroutine ng_context_create_comm(resource, comm, ctx, stat)
    character(*), intent(in) :: resource
    integer, intent(in) :: comm
    type(ng_context), intent(out) :: ctx
    integer, intent(out), optional :: stat
    call check(c_ng_fortran_context_create_comm(c_str(resource), int(comm, c_int), ctx%ptr), &
               'ng_context_create_comm', stat)
  end subroutine

  subroutine ng_context_destroy(ctx, stat)
    type(ng_context), intent(inout) :: ctx
    integer, intent(out), optional :: stat
    call check(c_ng_context_destroy(ctx%ptr), 'ng_context_destroy', stat)
    ctx%ptr = c_null_ptr
  end subroutine

  logical function ng_context_on_gpu(ctx)
    type(ng_context), intent(in) :: ctx
    integer(c_int) :: g
    g = 0
    call check(c_ng_context_on_gpu(ctx%ptr, g), 'ng_context_on_gpu')
    ng_context_on_gpu = g /= 0
  end function

  subroutine ng_context_rank(ctx, rank, size, stat)
    type(ng_context), intent(in) :: ctx
    integer, intent(out) :: rank
    integer, intent(out), optional :: size
    integer, intent(out), optional :: stat
    integer(c_int) :: r, s
    call check(c_ng_context_rank(ctx%ptr, r, s), 'ng_context_rank', stat)
    rank = r
    if (present(size)) size = s
  end subroutine

  function ng_context_describe(ctx) result(s)
    type(ng_context), intent(in) :: ctx
    character(:), allocatable :: s
    s = f_str(c_ng_context_describe(ctx%ptr))
  end function

  subroutine ng_context_report_binding(ctx, binding, stat)
    type(ng_context), intent(in) :: ctx
    character(:), allocatable, intent(out) :: binding
    integer, intent(out), optional :: stat
    character(kind=c_char) :: buf(1024)
    buf = c_null_char
    call check(c_ng_context_report_binding(ctx%ptr, buf, int(size(buf), c_size_t)), 'ng_context_report_binding', stat)
    binding = buf_str(buf)
  end subroutine

  subroutine ng_context_bind_memory(ctx, stat)
    type(ng_context), intent(in) :: ctx
    integer, intent(out), optional :: stat
    call check(c_ng_context_bind_memory(ctx%ptr), 'ng_context_bind_memory', stat)
  end subroutine

  ! ---- options ---------------------------------------------------------------
  subroutine ng_options_create(opts, stat)
    type(ng_options), intent(out) :: opts
    integer, intent(out), optional :: stat
    call check(c_ng_options_create(opts%ptr), 'ng_options_create', stat)
  end subroutine

  subroutine ng_options_destroy(opts, stat)
    type(ng_options), intent(inout) :: opts
    integer, intent(out), optional :: stat
    call check(c_ng_options_destroy(opts%ptr), 'ng_options_destroy', stat)
    opts%ptr = c_null_ptr
  end subroutine

  ! args: the words after the program name, e.g. ['-tol ', '1e-10']
  subroutine ng_options_set_from_args(opts, args, stat)
    type(ng_options), intent(in) :: opts
    character(*), intent(in) :: args(:)
    integer, intent(out), optional :: stat
    character(kind=c_char), allocatable, target :: buf(:)
    type(c_ptr), allocatable :: argv(:)
    integer :: i, j, p, total
    integer(c_int) :: argc
    character(len=*), parameter :: prog = 'fortran'
    total = len(prog) + 1
    do i = 1, size(args)
      total = total + len_trim(args(i)) + 1
    end do
    allocate (buf(total), argv(size(args) + 2))
    p = 1
    do i = 0, size(args)
      argv(i + 1) = c_loc(buf(p))
      if (i == 0) then
        do j = 1, len(prog)
          buf(p) = prog(j:j); p = p + 1
        end do
      else
        do j = 1, len_trim(args(i))
          buf(p) = args(i)(j:j); p = p + 1
        end do
      end if
      buf(p) = c_null_char; p = p + 1
    end do
    argv(size(args) + 2) = c_null_ptr
    argc = int(size(args) + 1, c_int)
    call check(c_ng_options_set_from_args(opts%ptr, argc, argv, 0_c_int), 'ng_options_set_from_args', stat)
  end subroutine

  ! The program's command line (get_command_argument 1..n).
  subroutine ng_options_set_from_command_line(opts, stat)
    type(ng_options), intent(in) :: opts
    integer, intent(out), optional :: stat
    character(len=4096), allocatable :: args(:)
    integer :: i, n
    n = command_argument_count()
    allocate (args(n))
    do i = 1, n
      call get_command_argument(i, args(i))
    end do
    call ng_options_set_from_args(opts, args, stat)
  end subroutine

  subroutine ng_options_set_from_string(opts, s, stat)
    type(ng_options), intent(in) :: opts
    character(*), intent(in) :: s
    integer, intent(out), optional :: stat
    call check(c_ng_options_set_from_string(opts%ptr, c_str(s)), 'ng_options_set_from_string', stat)
  end subroutine

  subroutine ng_options_set(opts, name, value, stat)
    type(ng_options), intent(in) :: opts
    character(*), intent(in) :: name, value
    integer, intent(out), optional :: stat
    call check(c_ng_options_set(opts%ptr, c_str(name), c_str(value)), 'ng_options_set', stat)
  end subroutine

  subroutine ng_options_get_string(opts, name, value, stat)
    type(ng_options), intent(in) :: opts
    character(*), intent(in) :: name
    character(:), allocatable, intent(out) :: value
    integer, intent(out), optional :: stat
    type(c_ptr) :: p
    p = c_null_ptr
    call check(c_ng_options_get_string(opts%ptr, c_str(name), p), 'ng_options_get_string', stat)
    value = f_str(p)
  end subroutine

  subroutine ng_options_get_int(opts, name, value, stat)
    type(ng_options), intent(in) :: opts
    character(*), intent(in) :: name
    integer, intent(out) :: value
    integer, intent(out), optional :: stat
    integer(c_int) :: v
    v = 0
    call check(c_ng_options_get_int(opts%ptr, c_str(name), v), 'ng_options_get_int', stat)
    value = v
  end subroutine

  subroutine ng_options_get_real(opts, name, value, stat)
    type(ng_options), intent(in) :: opts
    character(*), intent(in) :: name
    real(c_double), intent(out) :: value
    integer, intent(out), optional :: stat
    value = 0
    call check(c_ng_options_get_real(opts%ptr, c_str(name), value), 'ng_options_get_real', stat)
  end subroutine

  subroutine ng_options_get_bool(opts, name, value, stat)
    type(ng_options), intent(in) :: opts
    character(*), intent(in) :: name
    logical, intent(out) :: value
    integer, intent(out), optional :: stat
    integer(c_int) :: v
    v = 0
    call check(c_ng_options_get_bool(opts%ptr, c_str(name), v), 'ng_options_get_bool', stat)
    value = v /= 0
  end subroutine

  subroutine ng_options_register(opts, name, default_value, help, stat)
    type(ng_options), intent(in) :: opts
    character(*), intent(in) :: name, default_value, help
    integer, intent(out), optional :: stat
    call check(c_ng_options_register(opts%ptr, c_str(name), c_str(default_value), c_str(help)), &
               'ng_options_register', stat)
  end subroutine

  logical function ng_options_help_requested(opts)
    type(ng_options), intent(in) :: opts
    ng_options_help_requested = c_ng_options_help_requested(opts%ptr) /= 0
  end function

  ! Prints on the C stdout (the same terminal as Fortran's output_unit).
  subroutine ng_options_print_help(opts, stat)
    type(ng_options), intent(in) :: opts
    integer, intent(out), optional :: stat
    integer(c_int) :: st, ignored
    flush (output_unit)
    st = c_ng_options_print_help(opts%ptr, c_null_ptr)
    ignored = c_fflush(c_null_ptr)
    call check(st, 'ng_options_print_help', stat)
  end subroutine

  ! ---- matrices ---------------------------------------------------------------
  ! Whole matrix in CSR: rowptr(nrows+1), col(nnz), val(nnz), indices in base
  ! (1 by default: rowptr(1) = 1). Under MPI taken from rank 0.
  subroutine ng_matrix_create_csr_i8(ctx, nrows, ncols, rowptr, col, val, a, base, stat)
    type(ng_context), intent(in) :: ctx
    integer, intent(in) :: nrows, ncols
    integer(c_int64_t), intent(in) :: rowptr(:)
    integer(c_int32_t), intent(in) :: col(:)
    real(c_double), intent(in) :: val(:)
    type(ng_matrix), intent(out) :: a
    integer, intent(in), optional :: base
    integer, intent(out), optional :: stat
    integer(c_int64_t), allocatable :: rp(:)
    integer(c_int32_t), allocatable :: cl(:)
    integer :: b
    b = base_of(base)
    allocate (rp(max(size(rowptr), 1)), cl(max(size(col), 1)))
    rp = 0
    cl = 0
    if (size(rowptr) > 0) rp(1:size(rowptr)) = rowptr - b
    if (size(col) > 0) cl(1:size(col)) = col - b
    call check(c_ng_matrix_create_csr(ctx%ptr, int(nrows, c_int32_t), int(ncols, c_int32_t), rp, cl, &
                                      val, a%ptr), 'ng_matrix_create_csr', stat)
  end subroutine

  subroutine ng_matrix_create_csr_i4(ctx, nrows, ncols, rowptr, col, val, a, base, stat)
    type(ng_context), intent(in) :: ctx
    integer, intent(in) :: nrows, ncols
    integer(c_int32_t), intent(in) :: rowptr(:), col(:)
    real(c_double), intent(in) :: val(:)
    type(ng_matrix), intent(out) :: a
    integer, intent(in), optional :: base
    integer, intent(out), optional :: stat
    call ng_matrix_create_csr_i8(ctx, nrows, ncols, int(rowptr, c_int64_t), col, val, a, base, stat)
  end subroutine

  ! This rank's rows first_row..last_row (inclusive, numbered from base, 1 by
  ! default) of an n_global x n_global matrix, in CSR with global column
  ! numbers; a rank without rows passes last_row = first_row - 1.
  subroutine ng_matrix_create_distributed_i8(ctx, n_global, first_row, last_row, rowptr, gcol, val, a, base, stat)
    type(ng_context), intent(in) :: ctx
    integer(c_int64_t), intent(in) :: n_global, first_row, last_row
    integer(c_int64_t), intent(in) :: rowptr(:), gcol(:)
    real(c_double), intent(in) :: val(:)
    type(ng_matrix), intent(out) :: a
    integer, intent(in), optional :: base
    integer, intent(out), optional :: stat
    integer(c_int64_t), allocatable :: rp(:), gc(:)
    real(c_double) :: dummy(1)
    integer :: b
    b = base_of(base)
    allocate (rp(max(size(rowptr), 1)), gc(max(size(gcol), 1)))
    rp = 0
    gc = 0
    if (size(rowptr) > 0) rp(1:size(rowptr)) = rowptr - rowptr(1) ! rowptr(1) is base by definition
    if (size(gcol) > 0) gc(1:size(gcol)) = gcol - b
    dummy = 0
    if (size(val) == 0) then
      call check(c_ng_matrix_create_distributed(ctx%ptr, n_global, first_row - b, last_row - b + 1, rp, gc, &
                                                dummy, a%ptr), 'ng_matrix_create_distributed', stat)
    else
      call check(c_ng_matrix_create_distributed(ctx%ptr, n_global, first_row - b, last_row - b + 1, rp, gc, &
                                                val, a%ptr), 'ng_matrix_create_distributed', stat)
    end if
  end subroutine

  subroutine ng_matrix_create_distributed_i4(ctx, n_global, first_row, last_row, rowptr, gcol, val, a, base, stat)
    type(ng_context), intent(in) :: ctx
    integer(c_int32_t), intent(in) :: n_global, first_row, last_row
    integer(c_int32_t), intent(in) :: rowptr(:), gcol(:)
    real(c_double), intent(in) :: val(:)
    type(ng_matrix), intent(out) :: a
    integer, intent(in), optional :: base
    integer, intent(out), optional :: stat
    call ng_matrix_create_distributed_i8(ctx, int(n_global, c_int64_t), int(first_row, c_int64_t), &
                                         int(last_row, c_int64_t), int(rowptr, c_int64_t), int(gcol, c_int64_t), &
                                         val, a, base, stat)
  end subroutine

  subroutine ng_matrix_read_mtx(ctx, path, a, stat)
    type(ng_context), intent(in) :: ctx
    character(*), intent(in) :: path
    type(ng_matrix), intent(out) :: a
    integer, intent(out), optional :: stat
    call check(c_ng_matrix_read_mtx(ctx%ptr, c_str(path), a%ptr), 'ng_matrix_read_mtx', stat)
  end subroutine

  subroutine ng_matrix_write_mtx(a, path, stat)
    type(ng_matrix), intent(in) :: a
    character(*), intent(in) :: path
    integer, intent(out), optional :: stat
    call check(c_ng_matrix_write_mtx(a%ptr, c_str(path)), 'ng_matrix_write_mtx', stat)
  end subroutine

  ! spec: 'lap7:32', 'fem27:64x32x32', ...; b (optional) gets the problem's rhs.
  subroutine ng_matrix_generate(ctx, spec, a, b, stat)
    type(ng_context), intent(in) :: ctx
    character(*), intent(in) :: spec
    type(ng_matrix), intent(out) :: a
    type(ng_vector), intent(out), optional, target :: b
    integer, intent(out), optional :: stat
    if (present(b)) then
      call check(c_ng_matrix_generate(ctx%ptr, c_str(spec), a%ptr, c_loc(b%ptr)), 'ng_matrix_generate', stat)
    else
      call check(c_ng_matrix_generate(ctx%ptr, c_str(spec), a%ptr, c_null_ptr), 'ng_matrix_generate', stat)
    end if
  end subroutine

  ! New values, same pattern and order as at creation (this rank's entries).
  subroutine ng_matrix_update_values(a, val, stat)
    type(ng_matrix), intent(in) :: a
    real(c_double), intent(in) :: val(:)
    integer, intent(out), optional :: stat
    real(c_double) :: dummy(1)
    dummy = 0
    if (size(val) == 0) then
      call check(c_ng_matrix_update_values(a%ptr, dummy), 'ng_matrix_update_values', stat)
    else
      call check(c_ng_matrix_update_values(a%ptr, val), 'ng_matrix_update_values', stat)
    end if
  end subroutine

  subroutine ng_matrix_get_size(a, n_global, n_local, nnz_global, stat)
    type(ng_matrix), intent(in) :: a
    integer(c_int64_t), intent(out), optional :: n_global, nnz_global
    integer, intent(out), optional :: n_local
    integer, intent(out), optional :: stat
    integer(c_int64_t) :: ng, nz
    integer(c_int32_t) :: nl
    call check(c_ng_matrix_get_size(a%ptr, ng, nl, nz), 'ng_matrix_get_size', stat)
    if (present(n_global)) n_global = ng
    if (present(n_local)) n_local = nl
    if (present(nnz_global)) nnz_global = nz
  end subroutine

  subroutine ng_matrix_get_local_nnz(a, nnz_local, stat)
    type(ng_matrix), intent(in) :: a
    integer(c_int64_t), intent(out) :: nnz_local
    integer, intent(out), optional :: stat
    call check(c_ng_matrix_get_local_nnz(a%ptr, nnz_local), 'ng_matrix_get_local_nnz', stat)
  end subroutine

  ! This rank's rows: first_row..last_row, numbered from base (1 by default).
  subroutine ng_matrix_get_ownership_i8(a, first_row, last_row, base, stat)
    type(ng_matrix), intent(in) :: a
    integer(c_int64_t), intent(out) :: first_row, last_row
    integer, intent(in), optional :: base
    integer, intent(out), optional :: stat
    integer(c_int64_t) :: rb, re
    call check(c_ng_matrix_get_ownership(a%ptr, rb, re), 'ng_matrix_get_ownership', stat)
    first_row = rb + base_of(base)
    last_row = re - 1 + base_of(base)
  end subroutine

  subroutine ng_matrix_get_ownership_i4(a, first_row, last_row, base, stat)
    type(ng_matrix), intent(in) :: a
    integer(c_int32_t), intent(out) :: first_row, last_row
    integer, intent(in), optional :: base
    integer, intent(out), optional :: stat
    integer(c_int64_t) :: f, l
    call ng_matrix_get_ownership_i8(a, f, l, base, stat)
    first_row = int(f, c_int32_t)
    last_row = int(l, c_int32_t)
  end subroutine

  subroutine ng_matrix_set_format(a, format, stat)
    type(ng_matrix), intent(in) :: a
    character(*), intent(in) :: format
    integer, intent(out), optional :: stat
    call check(c_ng_matrix_set_format(a%ptr, c_str(format)), 'ng_matrix_set_format', stat)
  end subroutine

  function ng_matrix_format(a) result(s)
    type(ng_matrix), intent(in) :: a
    character(:), allocatable :: s
    s = f_str(c_ng_matrix_format(a%ptr))
  end function

  ! y = A x (collective)
  subroutine ng_matrix_apply(a, x, y, stat)
    type(ng_matrix), intent(in) :: a
    type(ng_vector), intent(in) :: x, y
    integer, intent(out), optional :: stat
    call check(c_ng_matrix_apply(a%ptr, x%ptr, y%ptr), 'ng_matrix_apply', stat)
  end subroutine

  subroutine ng_matrix_get_comm_info(a, n_local_rows, n_halo, n_neighbors, comm_seconds, stat)
    type(ng_matrix), intent(in) :: a
    integer, intent(out), optional :: n_local_rows, n_halo, n_neighbors
    real(c_double), intent(out), optional :: comm_seconds
    integer, intent(out), optional :: stat
    integer(c_int32_t) :: nl, nh
    integer(c_int) :: nn
    real(c_double) :: cs
    call check(c_ng_matrix_get_comm_info(a%ptr, nl, nh, nn, cs), 'ng_matrix_get_comm_info', stat)
    if (present(n_local_rows)) n_local_rows = nl
    if (present(n_halo)) n_halo = nh
    if (present(n_neighbors)) n_neighbors = nn
    if (present(comm_seconds)) comm_seconds = cs
  end subroutine

  subroutine ng_matrix_destroy(a, stat)
    type(ng_matrix), intent(inout) :: a
    integer, intent(out), optional :: stat
    call check(c_ng_matrix_destroy(a%ptr), 'ng_matrix_destroy', stat)
    a%ptr = c_null_ptr
  end subroutine

  ! ---- vectors ------------------------------------------------------------------
  subroutine ng_vector_create(a, v, stat)
    type(ng_matrix), intent(in) :: a
    type(ng_vector), intent(out) :: v
    integer, intent(out), optional :: stat
    call check(c_ng_vector_create(a%ptr, v%ptr), 'ng_vector_create', stat)
  end subroutine

  subroutine ng_vector_destroy(v, stat)
    type(ng_vector), intent(inout) :: v
    integer, intent(out), optional :: stat
    call check(c_ng_vector_destroy(v%ptr), 'ng_vector_destroy', stat)
    v%ptr = c_null_ptr
  end subroutine

  subroutine ng_vector_get_size(v, n_local, stat)
    type(ng_vector), intent(in) :: v
    integer, intent(out) :: n_local
    integer, intent(out), optional :: stat
    integer(c_int32_t) :: n
    call check(c_ng_vector_get_size(v%ptr, n), 'ng_vector_get_size', stat)
    n_local = n
  end subroutine

  ! values(n_local): this rank's entries
  subroutine ng_vector_set_values(v, values, stat)
    type(ng_vector), intent(in) :: v
    real(c_double), intent(in) :: values(:)
    integer, intent(out), optional :: stat
    integer :: n
    call ng_vector_get_size(v, n)
    if (size(values) < n) then
      call check(NG_ERR_ARGUMENT, 'ng_vector_set_values: values has fewer entries than the vector', stat)
      return
    end if
    if (n == 0) then
      call check(NG_SUCCESS, 'ng_vector_set_values', stat)
      return
    end if
    call check(c_ng_vector_set_values(v%ptr, values), 'ng_vector_set_values', stat)
  end subroutine

  subroutine ng_vector_get_values(v, values, stat)
    type(ng_vector), intent(in) :: v
    real(c_double), intent(inout) :: values(:)
    integer, intent(out), optional :: stat
    integer :: n
    call ng_vector_get_size(v, n)
    if (size(values) < n) then
      call check(NG_ERR_ARGUMENT, 'ng_vector_get_values: values has fewer entries than the vector', stat)
      return
    end if
    if (n == 0) then
      call check(NG_SUCCESS, 'ng_vector_get_values', stat)
      return
    end if
    call check(c_ng_vector_get_values(v%ptr, values), 'ng_vector_get_values', stat)
  end subroutine

  subroutine ng_vector_fill(v, value, stat)
    type(ng_vector), intent(in) :: v
    real(c_double), intent(in) :: value
    integer, intent(out), optional :: stat
    call check(c_ng_vector_fill(v%ptr, value), 'ng_vector_fill', stat)
  end subroutine

  subroutine ng_vector_copy(src, dst, stat)
    type(ng_vector), intent(in) :: src, dst
    integer, intent(out), optional :: stat
    call check(c_ng_vector_copy(src%ptr, dst%ptr), 'ng_vector_copy', stat)
  end subroutine

  ! y = alpha x + y
  subroutine ng_vector_axpy(alpha, x, y, stat)
    real(c_double), intent(in) :: alpha
    type(ng_vector), intent(in) :: x, y
    integer, intent(out), optional :: stat
    call check(c_ng_vector_axpy(alpha, x%ptr, y%ptr), 'ng_vector_axpy', stat)
  end subroutine

  real(c_double) function ng_vector_dot(x, y, stat)
    type(ng_vector), intent(in) :: x, y
    integer, intent(out), optional :: stat
    ng_vector_dot = 0
    call check(c_ng_vector_dot(x%ptr, y%ptr, ng_vector_dot), 'ng_vector_dot', stat)
  end function

  real(c_double) function ng_vector_norm2(x, stat)
    type(ng_vector), intent(in) :: x
    integer, intent(out), optional :: stat
    ng_vector_norm2 = 0
    call check(c_ng_vector_norm2(x%ptr, ng_vector_norm2), 'ng_vector_norm2', stat)
  end function

  subroutine ng_vector_read_mtx(v, path, stat)
    type(ng_vector), intent(in) :: v
    character(*), intent(in) :: path
    integer, intent(out), optional :: stat
    call check(c_ng_vector_read_mtx(v%ptr, c_str(path)), 'ng_vector_read_mtx', stat)
  end subroutine

  subroutine ng_vector_write_mtx(v, path, stat)
    type(ng_vector), intent(in) :: v
    character(*), intent(in) :: path
    integer, intent(out), optional :: stat
    call check(c_ng_vector_write_mtx(v%ptr, c_str(path)), 'ng_vector_write_mtx', stat)
  end subroutine

  ! ---- preconditioners --------------------------------------------------------
  subroutine ng_precond_create(ctx, opts, a, p, stat)
    type(ng_context), intent(in) :: ctx
    type(ng_options), intent(in) :: opts
    type(ng_matrix), intent(in) :: a
    type(ng_precond), intent(out) :: p
    integer, intent(out), optional :: stat
    call check(c_ng_precond_create(ctx%ptr, opts%ptr, a%ptr, p%ptr), 'ng_precond_create', stat)
  end subroutine

  subroutine ng_precond_update(p, a, stat)
    type(ng_precond), intent(in) :: p
    type(ng_matrix), intent(in) :: a
    integer, intent(out), optional :: stat
    call check(c_ng_precond_update(p%ptr, a%ptr), 'ng_precond_update', stat)
  end subroutine

  subroutine ng_precond_apply(p, r, z, stat)
    type(ng_precond), intent(in) :: p
    type(ng_vector), intent(in) :: r, z
    integer, intent(out), optional :: stat
    call check(c_ng_precond_apply(p%ptr, r%ptr, z%ptr), 'ng_precond_apply', stat)
  end subroutine

  subroutine ng_precond_destroy(p, stat)
    type(ng_precond), intent(inout) :: p
    integer, intent(out), optional :: stat
    call check(c_ng_precond_destroy(p%ptr), 'ng_precond_destroy', stat)
    p%ptr = c_null_ptr
  end subroutine

  subroutine ng_precond_describe(p, description, stat)
    type(ng_precond), intent(in) :: p
    character(:), allocatable, intent(out) :: description
    integer, intent(out), optional :: stat
    character(kind=c_char) :: buf(8192)
    buf = c_null_char
    call check(c_ng_precond_describe(p%ptr, buf, int(size(buf), c_size_t)), 'ng_precond_describe', stat)
    description = buf_str(buf)
  end subroutine

  ! ---- solvers ---------------------------------------------------------------------
  subroutine ng_solver_create(ctx, opts, s, stat)
    type(ng_context), intent(in) :: ctx
    type(ng_options), intent(in) :: opts
    type(ng_solver), intent(out) :: s
    integer, intent(out), optional :: stat
    call check(c_ng_solver_create(ctx%ptr, opts%ptr, s%ptr), 'ng_solver_create', stat)
  end subroutine

  ! Setup; called again with the same matrix after ng_matrix_update_values it
  ! only updates the preconditioner (the time-step path).
  subroutine ng_solver_set_operator(s, a, stat)
    type(ng_solver), intent(in) :: s
    type(ng_matrix), intent(in) :: a
    integer, intent(out), optional :: stat
    call check(c_ng_solver_set_operator(s%ptr, a%ptr), 'ng_solver_set_operator', stat)
  end subroutine

  ! x: initial guess in, solution out. Without stat, not converging stops.
  subroutine ng_solver_solve(s, b, x, stat)
    type(ng_solver), intent(in) :: s
    type(ng_vector), intent(in) :: b, x
    integer, intent(out), optional :: stat
    call check(c_ng_solver_solve(s%ptr, b%ptr, x%ptr), 'ng_solver_solve', stat)
  end subroutine

  subroutine ng_solver_get_iterations(s, iterations, stat)
    type(ng_solver), intent(in) :: s
    integer, intent(out) :: iterations
    integer, intent(out), optional :: stat
    integer(c_int) :: i
    call check(c_ng_solver_get_iterations(s%ptr, i), 'ng_solver_get_iterations', stat)
    iterations = i
  end subroutine

  subroutine ng_solver_get_residual(s, relative_residual, stat)
    type(ng_solver), intent(in) :: s
    real(c_double), intent(out) :: relative_residual
    integer, intent(out), optional :: stat
    call check(c_ng_solver_get_residual(s%ptr, relative_residual), 'ng_solver_get_residual', stat)
  end subroutine

  ! history(1) = ||r0||, then one entry per iteration (a copy).
  subroutine ng_solver_get_history(s, history, stat)
    type(ng_solver), intent(in) :: s
    real(c_double), allocatable, intent(out) :: history(:)
    integer, intent(out), optional :: stat
    type(c_ptr) :: p
    integer(c_int) :: n
    real(c_double), pointer :: h(:)
    p = c_null_ptr
    n = 0
    call check(c_ng_solver_get_history(s%ptr, p, n), 'ng_solver_get_history', stat)
    if (n > 0 .and. c_associated(p)) then
      call c_f_pointer(p, h, [n])
      history = h
    else
      allocate (history(0))
    end if
  end subroutine

  ! fn: a bind(c) subroutine of interface ng_monitor_fn; user_ctx (optional,
  ! default c_null_ptr) is passed to it unchanged.
  subroutine ng_solver_set_monitor(s, fn, user_ctx, stat)
    type(ng_solver), intent(in) :: s
    procedure(ng_monitor_fn) :: fn
    type(c_ptr), intent(in), optional :: user_ctx
    integer, intent(out), optional :: stat
    type(c_ptr) :: u
    u = c_null_ptr
    if (present(user_ctx)) u = user_ctx
    call check(c_ng_solver_set_monitor(s%ptr, c_funloc(fn), u), 'ng_solver_set_monitor', stat)
  end subroutine

  subroutine ng_solver_clear_monitor(s, stat)
    type(ng_solver), intent(in) :: s
    integer, intent(out), optional :: stat
    call check(c_ng_solver_set_monitor(s%ptr, c_null_funptr, c_null_ptr), 'ng_solver_clear_monitor', stat)
  end subroutine

  subroutine ng_solver_get_precond_comm_seconds(s, seconds, stat)
    type(ng_solver), intent(in) :: s
    real(c_double), intent(out) :: seconds
    integer, intent(out), optional :: stat
    call check(c_ng_solver_get_precond_comm_seconds(s%ptr, seconds), 'ng_solver_get_precond_comm_seconds', stat)
  end subroutine

  ! The null space of a singular A (and A^T): up to 8 vectors, copied and
  ! orthonormalised; size(vecs) = 0 removes it (user guide: Singular systems).
  subroutine ng_solver_set_null_space(s, vecs, stat)
    type(ng_solver), intent(in) :: s
    type(ng_vector), intent(in) :: vecs(:)
    integer, intent(out), optional :: stat
    type(c_ptr) :: p(max(size(vecs), 1))
    integer :: k
    p = c_null_ptr
    do k = 1, size(vecs)
      p(k) = vecs(k)%ptr
    end do
    call check(c_ng_solver_set_null_space(s%ptr, int(size(vecs), c_int), p), 'ng_solver_set_null_space', stat)
  end subroutine

  ! ||b - P b|| / ||b||: the null-space part of b the last solve removed
  subroutine ng_solver_get_rhs_null_component(s, relative, stat)
    type(ng_solver), intent(in) :: s
    real(c_double), intent(out) :: relative
    integer, intent(out), optional :: stat
    call check(c_ng_solver_get_rhs_null_component(s%ptr, relative), 'ng_solver_get_rhs_null_component', stat)
  end subroutine

  ! name: 'auto', 'ipc', 'cuda_mpi' or 'host' (the same on every rank)
  subroutine ng_context_set_transport(ctx, name, stat)
    type(ng_context), intent(in) :: ctx
    character(*), intent(in) :: name
    integer, intent(out), optional :: stat
    call check(c_ng_context_set_transport(ctx%ptr, c_str(name)), 'ng_context_set_transport', stat)
  end subroutine

  function ng_context_get_transport(ctx) result(s)
    type(ng_context), intent(in) :: ctx
    character(:), allocatable :: s
    s = f_str(c_ng_context_get_transport(ctx%ptr))
  end function

  subroutine ng_matrix_get_transport(a, transports, stat)
    type(ng_matrix), intent(in) :: a
    character(:), allocatable, intent(out) :: transports
    integer, intent(out), optional :: stat
    character(kind=c_char) :: buf(1024)
    buf = c_null_char
    call check(c_ng_matrix_get_transport(a%ptr, buf, int(size(buf), c_size_t)), 'ng_matrix_get_transport', stat)
    transports = buf_str(buf)
  end subroutine

  subroutine ng_solver_get_times(s, setup_seconds, solve_seconds, stat)
    type(ng_solver), intent(in) :: s
    real(c_double), intent(out), optional :: setup_seconds, solve_seconds
    integer, intent(out), optional :: stat
    real(c_double) :: a, b
    call check(c_ng_solver_get_times(s%ptr, a, b), 'ng_solver_get_times', stat)
    if (present(setup_seconds)) setup_seconds = a
    if (present(solve_seconds)) solve_seconds = b
  end subroutine

  subroutine ng_solver_destroy(s, stat)
    type(ng_solver), intent(inout) :: s
    integer, intent(out), optional :: stat
    call check(c_ng_solver_destroy(s%ptr), 'ng_solver_destroy', stat)
    s%ptr = c_null_ptr
  end subroutine

end module nagare
