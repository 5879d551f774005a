/// src/python/calls/engine.h -- the engine every wsarray call goes through: unwrap the wsarray.Array
/// arguments (checking each one's cycle), call NumPy with its allocations routed into the current
/// workspace, wrap the ndarrays of the result as Arrays (NumPy's scalars are returned as they are).
#pragma once
#include "results/array_object.h"
#include "calls/call_arguments.h"

#include <string>

namespace wsa_py {

/// Call `func(*args, **kwargs)` with every wsarray.Array argument (also inside lists and tuples)
/// replaced by its ndarray, NumPy's allocations routed into the current workspace, and every
/// ndarray in the result wrapped. Errors name `name` ("wsarray.<name>()").
/// `self_array`: the Array a method is called on (a view of it gets it as its base; a result that
/// is its ndarray comes back as the Array itself, as NumPy returns self).
nb::object apply(const char *name, PyObject *func, PyObject *args, PyObject *kwargs, PyObject *self_array = nullptr);
/// apply() with the positional arguments as an array (a vectorcall's). `first_out`: the position
/// from which positional arguments are a ufunc's out arrays (-1: none); NumPy ndarrays given
/// there are returned as they are, as NumPy returns out arrays (np.add(x, 1, o) is o).
nb::object apply_vector(const char *name, PyObject *func, PyObject *const *args, Py_ssize_t nargs, PyObject *kwargs,
                        PyObject *self_array = nullptr, Py_ssize_t first_out = -1);

/// NumPy's two override protocols (NEP 13, NEP 18).
enum class Protocol { Ufunc, Function };

/// Does `o` belong to another array library that overrides `which` (its type defines
/// __array_ufunc__ / __array_function__ as something other than NumPy's or wsarray's, and not
/// None)? Dask, CuPy, sparse, xarray: wsarray defers to them, as ndarray does. Also checks the
/// items of a list or tuple `o`.
bool foreign_override(PyObject *o, Protocol which);

/// Is a wsarray.Array among the arguments (also inside their lists and tuples)?
bool holds_array(PyObject *const *args, Py_ssize_t nargs, PyObject *kwargs);

/// Raise WorkspaceError, named after `name`, if an Array in `o` (itself, or in its lists and
/// tuples) belongs to an ended cycle.
void check_arrays_in(PyObject *o, const char *name, int depth = 0);

/// Wrap an ndarray in a new wsarray.Array (anything else is returned as it is); `source`: the Array it was taken
/// from (a view of it gets it as its base; its own ndarray comes back as `source` itself).
nb::object wrap_ndarray(nb::handle nd, nb::handle source = nb::handle());
/// wrap_ndarray() for a result NumPy derived from the Array `source` (state `a`): a view of its
/// own memory is in its cycle and names it as base, without a lookup.
nb::object wrap_derived(nb::handle r, Array &a, nb::handle source);

/// NumPy's function of wsarray's `name` ("sort", "linalg.norm") when `func` is wsarray's own
/// implementation of it (the standard's functions), one that runs NumPy's dispatch (NEP 13/18);
/// `func` itself when `func` is NumPy's or NumPy has no such function. Borrowed, kept.
PyObject *numpy_counterpart(const char *name, PyObject *func);

/// NumPy's object of wsarray's `name` ("concatenate", "linalg.norm"), null when NumPy has none.
/// Borrowed: the lookups are kept for the process (under the GIL).
PyObject *numpy_named(const std::string &name);

} // namespace wsa_py
