/* src/python/common/gc_collecting.c -- whether CPython's cyclic garbage collector is collecting now
 * (see context_change.h). CPython 3.10 and 3.11 run the collector inside any allocation of a
 * tracked object and keep its "collecting" flag in the interpreter's private state; this file
 * alone reads private headers (in C, as they require). From 3.12 on the collector runs only
 * between bytecodes and nothing here is needed: the function answers 0. */
#include <patchlevel.h>

#if PY_VERSION_HEX < 0x030C0000
#define Py_BUILD_CORE 1
#include <Python.h>
#include "internal/pycore_interp.h"

int wsarray_gc_collecting(void) { return PyInterpreterState_Get()->gc.collecting; }
#else
#include <Python.h>

int wsarray_gc_collecting(void) { return 0; }
#endif
