/* params.h -- the methods of libflow and their parameters.
 *
 * Every method (lk, hs, clg, clg-nl, ...) declares its parameters once, in
 * a schema: name, type, default, range, a one-line help and the setting
 * under which it has an effect.  Everything about parameters is derived
 * from the schemas: a flow_params object holds the values of one method;
 * setting a value checks it against its range; .params files, the command
 * line options of flow-compute and its --help come from the same lists.
 * Names belong to their method: two methods may each have a parameter
 * `tau`, meaning different things.
 *
 *   flow_params *p;
 *   flow_params_create("clg-nl", &p);          // the method's defaults
 *   flow_params_set(p, "alpha", "20");          // text, as in a .params file
 *   flow_params_set_number(p, "warp_levels", 3);
 *   ... flow_context_create(device, w, h, 1, p, &ctx) ...
 *   flow_params_destroy(p);
 *
 * The methods (docs/ALGORITHMS.md, docs/PARAMETERS.md): local Lucas-Kanade
 * (Gaussian window rho, or box window with a minimum-eigenvalue threshold
 * tau), Horn-Schunck, linear CLG, nonlinear CLG with Psi(s^2) = sqrt(s^2 +
 * eps^2) on the data and/or smoothness term, solved by Jacobi, red-black
 * SOR, V- and W-cycles, cascadic or full multigrid (FAS when nonlinear),
 * optionally coarse to fine with warping. */
#ifndef FLOW_PARAMS_H
#define FLOW_PARAMS_H

#include "flow/status.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the registry of methods and their schemas -------------------------- */

typedef enum flow_param_type {
    FLOW_PARAM_REAL,   /* a number */
    FLOW_PARAM_INT,    /* an integer */
    FLOW_PARAM_BOOL,   /* 0 or 1 */
    FLOW_PARAM_CHOICE, /* one of the names in choices; its number is the index */
} flow_param_type;

/* Range flags. */
#define FLOW_PARAM_MIN_OPEN 1u /* min itself is excluded */
#define FLOW_PARAM_MAX_OPEN 2u /* max itself is excluded */
#define FLOW_PARAM_ODD 4u      /* INT: odd values only */

typedef struct flow_param_info {
    const char *name;           /* the key of .params files; --name-with-dashes on the CLI */
    flow_param_type type;
    double def;                 /* the method's default (CHOICE: the index) */
    double min, max;            /* REAL and INT: the range, with flags */
    unsigned flags;             /* FLOW_PARAM_* */
    const char *const *choices; /* CHOICE: the names, NULL-terminated */
    const char *help;           /* one line, for --help and the studio */
    const char *when;           /* NULL, or the setting under which the parameter has an
                                   effect, in words: "window box", "solver v, w or fmg" */
    const char *alias;          /* NULL, or a former name, still read wherever the name is
                                   (.params files, options, flow_params_set and _get) and
                                   written as the name */
} flow_param_info;

/* The methods, in the order of the registry: i = 0, 1, ... until NULL. */
const char *flow_method_at(int i);
/* The method flow-compute and the other tools use when none is named. */
const char *flow_method_default(void);
/* Whether `name` is a method of the registry. */
int flow_method_exists(const char *name);
/* A one-line description with its reference; NULL for an unknown method. */
const char *flow_method_title(const char *method);
/* The parameters of a method: i = 0, 1, ... until NULL (also NULL for an
 * unknown method). */
const flow_param_info *flow_method_param(const char *method, int i);
/* The parameter `key` of a method, or NULL when it has none of that name. */
const flow_param_info *flow_method_param_find(const char *method, const char *key);

/* ---- parameter values --------------------------------------------------- */

typedef struct flow_params flow_params;

/* The defaults of `method` (NULL: flow_method_default()).  FLOW_ERR_INVALID
 * for an unknown method, naming the known ones. */
flow_status flow_params_create(const char *method, flow_params **out);
flow_status flow_params_clone(const flow_params *p, flow_params **out);
void flow_params_destroy(flow_params *p);
const char *flow_params_method(const flow_params *p);

/* Sets a parameter from text: a number for REAL, INT and BOOL, a name for
 * CHOICE.  FLOW_ERR_INVALID, with p unchanged, when the method has no such
 * parameter, the text is malformed or the value is out of range; the
 * detail then reads "parameter alpha = -5 out of range (0 < alpha <=
 * 1e+12)" or "method clg has no parameter 'tau'". */
flow_status flow_params_set(flow_params *p, const char *key, const char *value);
/* The same from a number (CHOICE: its index). */
flow_status flow_params_set_number(flow_params *p, const char *key, double value);
/* The value as text, as a .params file writes it (REAL as the shortest text
 * that reads back as the same double, bit for bit). */
flow_status flow_params_get(const flow_params *p, const char *key, char *buf, size_t size);
/* The value as a number (CHOICE: its index). */
flow_status flow_params_get_number(const flow_params *p, const char *key, double *value);
/* 1 when `key` is a parameter of p's method and has an effect under p's
 * other values (see flow_param_info.when), else 0. */
int flow_params_applies(const flow_params *p, const char *key);
/* FLOW_OK, or FLOW_ERR_INVALID naming the first value out of range (values
 * only ever enter through the setters, which check them: this is for a
 * caller that wants to be sure). */
flow_status flow_params_validate(const flow_params *p);

/* ---- .params files (Moussu 2010, section 5.1.1) ------------------------
 * One `key,value` per line, `#` starts a comment, blank lines are ignored;
 * the keys are the parameter names of the method, and `method`.
 *
 * flow_params_read: a file that names a method starts from that method's
 * defaults (so it need only list what differs); one that does not applies
 * to *p's method (to the default method's defaults when *p is NULL).  On
 * success *p is replaced by the result (the old object destroyed); on
 * failure *p is unchanged.  FLOW_ERR_IO when the file cannot be read,
 * FLOW_ERR_INVALID naming file:line for an unknown method or key, a
 * malformed line, a repeated key, a value out of range, or a value other
 * than the default for a parameter that has no effect under the file's
 * other values (flow_params_applies: the rule flow-compute's options obey).
 *
 * flow_params_write: `method` and every parameter of the method, after
 * `comment` as '#' lines when it is not NULL; reals as the shortest text
 * that reads back exactly, a parameter without effect
 * under p's other values at its default.  Reading the file gives back p,
 * those parameters at their defaults.  Whole-or-nothing. */
flow_status flow_params_read(const char *path, flow_params **p);
flow_status flow_params_write(const char *path, const flow_params *p, const char *comment);

#ifdef __cplusplus
}
#endif
#endif
