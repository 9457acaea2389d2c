/* cli.c -- messages, exit codes, option errors, checked number parsing,
 * the device option, output directories and Ctrl-C, shared by the
 * command-line tools (see cli.h). */
#include "cli.h"

#include "flow/flow.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *program = "flow";

/* Whether a failed write to stdout has been reported already. */
static int stdout_reported;

static void report_stdout_error(int err)
{
    if (!stdout_reported)
        cli_error("write error on standard output%s%s", err ? ": " : "", err ? strerror(err) : "");
    stdout_reported = 1;
}

int cli_flush_stdout(void)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return CLI_EXIT_OK;
    report_stdout_error(errno);
    return CLI_EXIT_IO;
}

/* Runs at exit.  A closed descriptor with nothing left to write (a tool run
 * with >&- that printed nothing) is not a failure; anything else is, and
 * exit() cannot be called again from here, hence _exit. */
static void check_stdout_at_exit(void)
{
    int failed = cli_flush_stdout() != CLI_EXIT_OK;
    errno = 0;
    if (fclose(stdout) != 0 && (failed || errno != EBADF)) {
        report_stdout_error(errno);
        failed = 1;
    }
    if (failed)
        _exit(CLI_EXIT_IO);
}

void cli_start(const char *name)
{
    if (name && *name)
        program = name;
    atexit(check_stdout_at_exit);
}

const char *cli_program(void)
{
    return program;
}

/* A progress line is on stderr and not ended: the next message ends it
 * first.  Read and written under stderr's lock, which every message holds
 * (writer and reader threads print too). */
static int progress_open;
static const char *progress_heading; /* NULL: the program's name */

static void end_progress_locked(void)
{
    if (progress_open)
        fputc('\n', stderr);
    progress_open = 0;
}

static void vmessage(const char *kind, const char *fmt, va_list ap)
{
    flockfile(stderr);
    end_progress_locked();
    fprintf(stderr, "%s: %s", program, kind);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    funlockfile(stderr);
}

void cli_info(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage("", fmt, ap);
    va_end(ap);
}

void cli_progress(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    flockfile(stderr);
    fprintf(stderr, "\r%s: ", progress_heading ? progress_heading : program);
    vfprintf(stderr, fmt, ap);
    /* erase what a longer line before left (the lines are on a terminal) */
    fputs("\033[K", stderr);
    fflush(stderr);
    progress_open = 1;
    funlockfile(stderr);
    va_end(ap);
}

void cli_progress_end(void)
{
    flockfile(stderr);
    end_progress_locked();
    funlockfile(stderr);
}

void cli_progress_clear(void)
{
    flockfile(stderr);
    if (progress_open) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    progress_open = 0;
    funlockfile(stderr);
}

void cli_progress_name(const char *name)
{
    progress_heading = name;
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage("", fmt, ap);
    va_end(ap);
}

void cli_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage("warning: ", fmt, ap);
    va_end(ap);
}

int cli_exit_for_status(flow_status s)
{
    switch (s) {
    case FLOW_OK:
        return CLI_EXIT_OK;
    case FLOW_ERR_NOMEM:
    case FLOW_ERR_NO_DEVICE:
    case FLOW_ERR_DEVICE:
        return CLI_EXIT_COMPUTE;
    default:
        return CLI_EXIT_IO;
    }
}

int cli_report_status(flow_status s)
{
    const char *detail = flow_last_error();
    if (detail && *detail)
        cli_error("%s", detail);
    else
        cli_error("%s", flow_status_str(s));
    return cli_exit_for_status(s);
}

int cli_usage_error(const char *usage, const char *help_cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage("", fmt, ap);
    va_end(ap);
    if (usage)
        fprintf(stderr, "usage: %s\n", usage);
    if (help_cmd)
        fprintf(stderr, "Try '%s --help' for more information.\n", help_cmd);
    return CLI_EXIT_USAGE;
}

int cli_bad_option(int c, char **argv, const char *usage, const char *help_cmd,
                   const char *cmd)
{
    const char *opt = optind > 0 ? argv[optind - 1] : "?";
    const char *p = cmd ? cmd : "", *sep = cmd ? ": " : "";
    if (c == ':')
        return cli_usage_error(usage, help_cmd, "%s%soption '%s' needs a value", p, sep, opt);
    /* a short option in a group ("-Zq") is a letter of argv[optind - 1] */
    if (optopt && strncmp(opt, "--", 2) != 0)
        return cli_usage_error(usage, help_cmd, "%s%sunknown option '-%c'", p, sep, optopt);
    return cli_usage_error(usage, help_cmd, "%s%sunknown option '%s'", p, sep, opt);
}

/* The number itself is parsed by libflow's rule (flow/number.h), the one
 * of parameters and .params files: an option and a file never disagree on
 * what a number is. */
int cli_parse_long(const char *what, const char *text, long lo, long hi, long *out)
{
    long x = 0;
    if (flow_parse_integer(text, &x) != FLOW_OK) {
        if (lo <= INT_MIN && hi >= INT_MAX) /* any integer: the range is checked elsewhere */
            cli_error("%s: %s", what, flow_last_error());
        else
            cli_error("%s: %s (expected %ld to %ld)", what, flow_last_error(), lo, hi);
        return -1;
    }
    if (x < lo || x > hi) {
        cli_error("%s: %ld is out of range (expected %ld to %ld)", what, x, lo, hi);
        return -1;
    }
    *out = x;
    return 0;
}

int cli_parse_int(const char *what, const char *text, int lo, int hi, int *out)
{
    long x;
    if (cli_parse_long(what, text, lo, hi, &x) != 0)
        return -1;
    *out = (int)x;
    return 0;
}

int cli_parse_double(const char *what, const char *text, double lo, double hi, double *out)
{
    double x = 0;
    if (flow_parse_real(text, &x) != FLOW_OK) {
        if (isinf(lo) && isinf(hi)) /* any number: the range is checked elsewhere */
            cli_error("%s: %s", what, flow_last_error());
        else
            cli_error("%s: %s (expected %g to %g)", what, flow_last_error(), lo, hi);
        return -1;
    }
    if (x < lo || x > hi) {
        cli_error("%s: %s is out of range (expected %g to %g)", what, text, lo, hi);
        return -1;
    }
    *out = x;
    return 0;
}

int cli_parse_int_list(const char *what, const char *text, int n, int lo, int hi, int *out)
{
    const char *p = text ? text : "";
    for (int i = 0; i < n; i++) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char item[32];
        if ((i < n - 1 && !comma) || (i == n - 1 && comma) || len == 0 || len >= sizeof item) {
            cli_error("%s: '%s' is not a list of %d comma-separated integers (%d to %d)", what,
                      text ? text : "", n, lo, hi);
            return -1;
        }
        memcpy(item, p, len);
        item[len] = '\0';
        if (cli_parse_int(what, item, lo, hi, &out[i]) != 0)
            return -1;
        p += len + 1;
    }
    return 0;
}

int cli_has_suffix(const char *name, const char *suffix)
{
    size_t n = strlen(name), k = strlen(suffix);
    if (k > n)
        return 0;
    for (size_t i = 0; i < k; i++)
        if (tolower((unsigned char)name[n - k + i]) != tolower((unsigned char)suffix[i]))
            return 0;
    return 1;
}

int cli_open_device(const char *name, const char *usage, int quiet, int verbose,
                    flow_device **out)
{
    flow_status s = flow_device_open(name, out);
    if (s != FLOW_OK) {
        if (s == FLOW_ERR_INVALID)
            return cli_usage_error(usage, program, "--device: %s", flow_last_error());
        cli_error("--device %s: %s", name, flow_last_error());
        return CLI_EXIT_COMPUTE;
    }
    if (flow_device_notice(*out)[0] && !quiet)
        cli_info("notice: %s", flow_device_notice(*out));
    if (verbose)
        cli_info("backend %s, device %s", flow_device_kind(*out), flow_device_name(*out));
    return CLI_EXIT_OK;
}

int cli_device_list(const char *spec)
{
    return strchr(spec, ',') != NULL || strstr(spec, ":all") != NULL;
}

int cli_open_devices(const char *spec, const char *usage, int quiet, int verbose,
                     flow_device **out, int max, int *n)
{
    *n = 0;
    if (!cli_device_list(spec)) {
        int rc = cli_open_device(spec, usage, quiet, verbose, &out[0]);
        *n = rc == CLI_EXIT_OK;
        return rc;
    }
    const flow_status s = flow_devices_open(spec, out, max < CLI_DEVICES_MAX ? max : CLI_DEVICES_MAX,
                                            n);
    if (s == FLOW_ERR_INVALID)
        return cli_usage_error(usage, program, "--device %s", flow_last_error());
    if (s != FLOW_OK) {
        cli_error("--device %s", flow_last_error());
        return CLI_EXIT_COMPUTE;
    }
    for (int i = 0; i < *n; i++) {
        int earlier = 0;
        while (earlier < i && out[earlier] != out[i])
            earlier++;
        if (earlier < i) /* said for its first entry */
            continue;
        if (flow_device_notice(out[i])[0] && !quiet)
            cli_info("notice: %s", flow_device_notice(out[i]));
        if (verbose)
            cli_info("backend %s, device %s", flow_device_kind(out[i]), flow_device_name(out[i]));
    }
    return CLI_EXIT_OK;
}

void cli_print_version(void)
{
    printf("%s %s (libflow %s)\n", program, flow_version(), flow_version());
    printf("backends:");
    for (int i = 0; flow_device_backend(i); i++)
        printf("%s %s", i ? "," : "", flow_device_backend(i));
    printf("\n");
    printf("OpenCV: %s\n", flow_image_has_opencv()
                               ? "yes (all image formats, video files, cameras)"
                               : "no (PGM/PPM, PNG and .y4m video only; no cameras)");
}

int cli_make_dirs(const char *path)
{
    char buf[4200];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
                cli_error("%s: cannot create the directory: %s", buf, strerror(errno));
                return CLI_EXIT_IO;
            }
            struct stat st;
            if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode)) {
                cli_error("%s: exists and is not a directory", buf);
                return CLI_EXIT_IO;
            }
            if (!c)
                break;
            *p = c;
        }
    }
    return CLI_EXIT_OK;
}

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
    interrupted = 1;
    signal(sig, SIG_DFL); /* a second Ctrl-C ends at once */
}

void cli_catch_interrupt(void)
{
    signal(SIGINT, on_interrupt);
}

int cli_interrupted(void)
{
    return interrupted;
}
