/* cli.h -- what the command-line tools (flow-compute, flow-track,
 * flow-tool, flow-synth) share: the documented exit codes, diagnostics on
 * stderr prefixed with the program name, a progress line that every
 * message ends first, the mapping from a libflow status to an exit code,
 * usage errors (rejected options included), number parsing that names the
 * option and the value it rejects, the --device option, directories made
 * for outputs, and Ctrl-C.
 *
 * Nothing here knows about a particular tool; keep it that way. */
#ifndef FLOW_TOOLS_CLI_H
#define FLOW_TOOLS_CLI_H

#include "flow/device.h"
#include "flow/status.h"

/* Exit codes of every tool (documented in each tool's --help). */
enum {
    CLI_EXIT_OK = 0,      /* success */
    CLI_EXIT_USAGE = 1,   /* bad command line: unknown option, missing or bad value */
    CLI_EXIT_IO = 2,      /* input/output: missing, unreadable, corrupt or mismatched files */
    CLI_EXIT_COMPUTE = 3  /* computation or device failure, out of memory */
};

/* Starts a tool: sets the name used as the prefix of every message
 * ("flow-tool"), and has standard output checked when the process exits
 * (returning from main or exit()): stdout is flushed and closed, and if a
 * write to it failed (a full disk, /dev/full, a closed descriptor with
 * output pending), "write error on standard output: <reason>" goes to
 * stderr and the exit status becomes CLI_EXIT_IO.  Every tool calls it
 * first.  cli_program gives the name back. */
void cli_start(const char *name);
const char *cli_program(void);

/* Flushes stdout now (a tool that streams results and reports its own
 * end); on a failed write reports it as above, once, and returns
 * CLI_EXIT_IO, else CLI_EXIT_OK. */
int cli_flush_stdout(void);

/* "<program>: <message>\n" on stderr. */
void cli_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* "<program>: warning: <message>\n" on stderr. */
void cli_warn(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* "<program>: <message>\n" on stderr, for what is not an error: notices,
 * summaries, the files written. */
void cli_info(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* A progress line on a terminal: "\r<program>: <text>", the rest of the
 * line erased, left open and redrawn by the next call.  Every message above
 * (and the usage errors) ends an open progress line first, so that it starts
 * a line of its own; cli_progress_end ends it at the end of the work, and
 * cli_progress_clear erases it instead, for a line that only shows while the
 * work goes on.  cli_progress_name heads the lines with name instead of the
 * program (NULL: the program again); name must outlive the progress. */
void cli_progress(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
void cli_progress_end(void);
void cli_progress_clear(void);
void cli_progress_name(const char *name);

/* The exit code for a failed libflow call: CLI_EXIT_COMPUTE for
 * FLOW_ERR_NOMEM, FLOW_ERR_NO_DEVICE and FLOW_ERR_DEVICE, CLI_EXIT_IO for
 * every other failure (files, formats, sizes, invalid data), CLI_EXIT_OK
 * for FLOW_OK. */
int cli_exit_for_status(flow_status s);

/* Prints the detail of the last failed libflow call (flow_last_error(), or
 * the status name when no detail was recorded) and returns
 * cli_exit_for_status(s). */
int cli_report_status(flow_status s);

/* Prints "<program>: <message>", then "usage: <usage>" and a pointer to
 * --help (usage may be NULL), on stderr; returns CLI_EXIT_USAGE.
 * help_cmd names what to ask for help ("flow-tool color"). */
int cli_usage_error(const char *usage, const char *help_cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The usage error for an option getopt_long() did not take (with opterr =
 * 0 and an optstring that starts with ':'): c == ':' is an option given
 * without its value, any other c an unknown option; the message names the
 * option (the letter itself inside a group of short options) after "cmd: "
 * when cmd is not NULL (a subcommand).  Returns cli_usage_error(usage,
 * help_cmd, ...), that is CLI_EXIT_USAGE. */
int cli_bad_option(int c, char **argv, const char *usage, const char *help_cmd,
                   const char *cmd);

/* Number parsing by libflow's rule (flow/number.h, which .params files
 * follow too): the whole of text must be the number, inside [lo, hi] (NaN,
 * infinities and nonzero text that rounds to 0 are rejected).  On success stores it and returns 0;
 * otherwise prints "<program>: <what>: '<text>' is not ..., expected ..."
 * and returns -1.  `what` names the option or argument ("--step").  Bounds
 * INT_MIN..INT_MAX (or wider) and -INFINITY..INFINITY take any number and
 * leave "expected" out: for values whose range the library checks. */
int cli_parse_long(const char *what, const char *text, long lo, long hi, long *out);
int cli_parse_int(const char *what, const char *text, int lo, int hi, int *out);
int cli_parse_double(const char *what, const char *text, double lo, double hi, double *out);
/* A comma-separated list of exactly n integers in [lo, hi] ("255,0,0"). */
int cli_parse_int_list(const char *what, const char *text, int n, int lo, int hi, int *out);

/* Whether name ends with suffix, ignoring ASCII case (".PNG" matches ".png"). */
int cli_has_suffix(const char *name, const char *suffix);

/* Opens the device --device names (auto, cpu, cuda, cuda:N): an unknown
 * name is a usage error (with the usage line), a device that cannot be
 * opened a compute error.  Prints the device's notice (auto fell back to
 * the CPU) unless quiet, and the backend and device when verbose. */
int cli_open_device(const char *name, const char *usage, int quiet, int verbose,
                    flow_device **out);
/* The same for a list, expanded by flow_device_list: entries separated by
 * commas, each a device name; "cuda:all" is every CUDA device, and a bare
 * number after a cuda:N entry another GPU ("cuda:0,1" is cuda:0 and
 * cuda:1); an empty entry ("cpu,") is a usage error.  At most `max` devices into out[0 .. *n - 1]
 * (flow_devices_open: entries naming one device share its handle, "cpu,cpu" is one CPU device
 * twice); close them with flow_devices_close.  On failure none stays open. */
int cli_open_devices(const char *spec, const char *usage, int quiet, int verbose,
                     flow_device **out, int max, int *n);
/* Whether a --device spec names several devices (a list, or cuda:all). */
int cli_device_list(const char *spec);
#define CLI_DEVICES_MAX 16

/* The first lines of every tool's --version: "<program> X (libflow X)", the
 * backends built in and whether OpenCV is (which formats it reads). */
void cli_print_version(void);

/* mkdir -p: path and every missing parent; an error (exit code) names the
 * part that could not be made or that exists and is not a directory. */
int cli_make_dirs(const char *path);

/* Ctrl-C: after cli_catch_interrupt() the first SIGINT only sets the flag
 * cli_interrupted() returns, so that the tool can finish what it has done
 * (its exit status then 130); a second one ends the process at once. */
void cli_catch_interrupt(void);
int cli_interrupted(void);

#endif
