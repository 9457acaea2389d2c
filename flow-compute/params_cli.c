/* params_cli.c -- flow-compute's parameter options, derived from the
 * methods' schemas (flow/params.h): one --name option per parameter name of
 * any method (`_` written `-`), their part of --help (the methods, and one
 * method's parameters with its defaults), and the merge of the
 * method's defaults, the -p file and the options.  No parameter is named
 * here: a method added to the library brings its options with it. */
#include "compute.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* A parameter's option name: the key with '-' for '_'. */
static void option_of(const char *key, char *buf, size_t size)
{
    snprintf(buf, size, "%s", key);
    for (char *c = buf; *c; c++)
        if (*c == '_')
            *c = '-';
}

/* Whether a parameter's option would take the name of one of the tool's
 * own options (the parameter color is set by --rgb: --color writes the
 * colour picture). */
static int taken(const char *key, const struct option *tool, int ntool)
{
    char opt[40];
    option_of(key, opt, sizeof opt);
    for (int i = 0; i < ntool; i++)
        if (strcmp(tool[i].name, opt) == 0)
            return 1;
    return 0;
}

void param_cli_init(param_cli *pc, const struct option *tool, int ntool)
{
    memset(pc, 0, sizeof *pc);
    pc->tool = tool;
    pc->ntool = ntool;
    const char *m;
    for (int i = 0; (m = flow_method_at(i)); i++) {
        const flow_param_info *in;
        /* each name once, and each former name (alias), still an option */
        for (int k = 0; (in = flow_method_param(m, k)); k++)
            for (int a = 0; a < 2; a++) {
                const char *name = a ? in->alias : in->name;
                int seen = !name;
                for (int j = 0; j < pc->n && !seen; j++)
                    seen = strcmp(pc->name[j], name) == 0;
                if (seen || pc->n == PARAM_NAMES_MAX || taken(name, tool, ntool))
                    continue;
                pc->name[pc->n] = name;
                option_of(name, pc->option[pc->n], sizeof pc->option[pc->n]);
                pc->n++;
            }
    }
}

int param_cli_longopts(const param_cli *pc, struct option *out, int base)
{
    for (int i = 0; i < pc->n; i++)
        out[i] = (struct option){ pc->option[i], required_argument, 0, base + i };
    return pc->n;
}

/* ---- --help ---------------------------------------------------------------- */

#define HELP_WIDTH 79
#define HELP_INDENT 23

/* Prints text from column `col`, wrapped at HELP_WIDTH with continuation
 * lines indented to `indent`, and a newline. */
static void wrap(FILE *f, int col, int indent, const char *text)
{
    while (*text) {
        const int room = HELP_WIDTH - col;
        int len = (int)strlen(text);
        if (len > room) {
            len = room;
            while (len > 0 && text[len] != ' ')
                len--;
            if (len == 0)
                len = (int)strcspn(text, " ");
        }
        fprintf(f, "%.*s\n", len, text);
        text += len;
        while (*text == ' ')
            text++;
        if (*text)
            fprintf(f, "%*s", indent, "");
        col = indent;
    }
}

static void value_text(const flow_param_info *in, double v, char *buf, size_t size)
{
    if (in->type == FLOW_PARAM_CHOICE)
        snprintf(buf, size, "%s", in->choices[(int)v]);
    else if (in->type == FLOW_PARAM_REAL)
        snprintf(buf, size, "%g", v);
    else
        snprintf(buf, size, "%d", (int)v);
}

/* Appends a formatted piece to buf[size] at *n. */
static void add(char *buf, size_t size, size_t *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void add(char *buf, size_t size, size_t *n, const char *fmt, ...)
{
    if (*n >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    const int k = vsnprintf(buf + *n, size - *n, fmt, ap);
    va_end(ap);
    *n += k > 0 ? (size_t)k : 0;
}

/* The option's term: "--name X" with the placeholder of its type. */
static void option_term(const flow_param_info *in, char *buf, size_t size)
{
    char name[40];
    option_of(in->name, name, sizeof name);
    snprintf(buf, size, "--%s %s", name,
             in->type == FLOW_PARAM_REAL   ? "X"
             : in->type == FLOW_PARAM_BOOL ? "0|1"
             : in->type == FLOW_PARAM_INT  ? "N"
                                           : "NAME");
}

void param_cli_help(const param_cli *pc, FILE *f, const char *method)
{
    const char *m;
    char text[1024];
    size_t n = 0;
    for (int i = 0; (m = flow_method_at(i)); i++)
        add(text, sizeof text, &n, "%s%s", i == 0 ? "" : flow_method_at(i + 1) ? ", " : " or ", m);
    add(text, sizeof text, &n, " [%s]", flow_method_default());
    fprintf(f, "  -m, --method NAME    ");
    wrap(f, HELP_INDENT, HELP_INDENT, text);
    for (int i = 0; (m = flow_method_at(i)); i++) {
        snprintf(text, sizeof text, "%s: %s", m, flow_method_title(m));
        fprintf(f, "%*s", HELP_INDENT + 2, "");
        wrap(f, HELP_INDENT + 2, HELP_INDENT + 4, text);
    }
    fprintf(f, "%*s", HELP_INDENT, "");
    wrap(f, HELP_INDENT, HELP_INDENT,
         method ? "each method's parameters: flow-compute -m NAME --help"
                : "a method's parameters, with their defaults and the settings they need: "
                  "flow-compute -m NAME --help");
    fprintf(f, "  -p, --params FILE    read parameters (key,value lines; # comments)\n");
    if (!method)
        return;
    fprintf(f, "Parameters of %s (its defaults in brackets):\n", method);
    const flow_param_info *in;
    for (int k = 0; (in = flow_method_param(method, k)); k++) {
        if (taken(in->name, pc->tool, pc->ntool))
            continue;
        char opt[64], v[64];
        option_term(in, opt, sizeof opt);
        n = 0;
        add(text, sizeof text, &n, "%s", in->help);
        for (int c = 0; in->type == FLOW_PARAM_CHOICE && in->choices[c]; c++)
            add(text, sizeof text, &n, "%s%s", c == 0 ? ": " : in->choices[c + 1] ? ", " : " or ",
                in->choices[c]);
        fprintf(f, "      %-16s", opt);
        if (strlen(opt) >= 16)
            fprintf(f, "\n%*s", HELP_INDENT, "");
        else
            fprintf(f, " ");
        wrap(f, HELP_INDENT, HELP_INDENT, text);
        value_text(in, in->def, v, sizeof v);
        n = 0;
        add(text, sizeof text, &n, "[%s]", v);
        if (in->when)
            add(text, sizeof text, &n, "; applies with %s", in->when);
        fprintf(f, "%*s", HELP_INDENT, "");
        wrap(f, HELP_INDENT, HELP_INDENT, text);
    }
}

/* ---- the merge ------------------------------------------------------------ */

/* " (from the -p file)" and the like: where the method came from. */
static const char *method_source(const param_cli *pc, int from_file)
{
    return pc->method ? "" : from_file ? " (from the -p file)" : " (the default)";
}

/* The methods other than `method` that have a parameter `key`, into buf. */
static const char *owners(const char *key, const char *method, char *buf, size_t size)
{
    size_t n = 0;
    const char *m;
    buf[0] = '\0';
    for (int i = 0; (m = flow_method_at(i)); i++)
        if (strcmp(m, method) != 0 && flow_method_param_find(m, key))
            add(buf, size, &n, "%s%s", n ? ", " : "", m);
    return buf;
}

int param_cli_merge(const param_cli *pc, const char *file, int rgb, flow_params **out)
{
    flow_params *p = NULL;
    *out = NULL;
    if (pc->method && flow_params_create(pc->method, &p) != FLOW_OK)
        return cli_usage_error(COMPUTE_USAGE, "flow-compute", "--method: %s", flow_last_error());
    int from_file = 0;
    if (file) {
        if (flow_params_read(file, &p) != FLOW_OK) {
            cli_error("%s", flow_last_error());
            flow_params_destroy(p);
            return CLI_EXIT_IO;
        }
        from_file = !pc->method;
        if (pc->method && strcmp(flow_params_method(p), pc->method) != 0) {
            const int rc = cli_usage_error(COMPUTE_USAGE, "flow-compute",
                                           "--method %s contradicts method %s of %s", pc->method,
                                           flow_params_method(p), file);
            flow_params_destroy(p);
            return rc;
        }
    } else if (!p && flow_params_create(NULL, &p) != FLOW_OK) {
        cli_error("%s", flow_last_error());
        return CLI_EXIT_COMPUTE;
    }
    const char *method = flow_params_method(p);
    int rc = CLI_EXIT_OK;
    for (int i = 0; i < pc->n && rc == CLI_EXIT_OK; i++) {
        if (!pc->value[i])
            continue;
        char others[256];
        if (!flow_method_param_find(method, pc->name[i]))
            rc = cli_usage_error(COMPUTE_USAGE, "flow-compute",
                                 "--%s does not apply to method %s%s (a parameter of %s)",
                                 pc->option[i], method, method_source(pc, from_file),
                                 owners(pc->name[i], method, others, sizeof others));
        else if (flow_params_set(p, pc->name[i], pc->value[i]) != FLOW_OK)
            rc = cli_usage_error(COMPUTE_USAGE, "flow-compute", "--%s: %s", pc->option[i],
                                 flow_last_error());
        /* one parameter under its name and its former name */
        for (int j = 0; j < i && rc == CLI_EXIT_OK; j++)
            if (pc->value[j] && flow_method_param_find(method, pc->name[j])
                                    == flow_method_param_find(method, pc->name[i]))
                rc = cli_usage_error(COMPUTE_USAGE, "flow-compute",
                                     "--%s and --%s set one parameter (%s)", pc->option[j],
                                     pc->option[i], flow_method_param_find(method, pc->name[i])->name);
    }
    if (rc == CLI_EXIT_OK && rgb && flow_params_set(p, "color", "1") != FLOW_OK)
        rc = cli_usage_error(COMPUTE_USAGE, "flow-compute", "--rgb: %s", flow_last_error());
    /* an option that the other parameters leave without effect would
     * silently do nothing */
    for (int i = 0; i < pc->n && rc == CLI_EXIT_OK; i++)
        if (pc->value[i] && !flow_params_applies(p, pc->name[i]))
            rc = cli_usage_error(COMPUTE_USAGE, "flow-compute",
                                 "--%s has no effect here: it applies with %s", pc->option[i],
                                 flow_method_param_find(method, pc->name[i])->when);
    if (rc != CLI_EXIT_OK) {
        flow_params_destroy(p);
        return rc;
    }
    *out = p;
    return CLI_EXIT_OK;
}
