/* The commands of the llmlat program and its help text. */
#ifndef LLMLAT_CLI_H
#define LLMLAT_CLI_H

#include <stdio.h>

/* Exit statuses (docs/cli.md). */
#define EXIT_OK 0
#define EXIT_RUNTIME 1 /* out of memory, write error */
#define EXIT_USAGE 2   /* bad option or value, unreadable or malformed trace */

/* `llmlat --help`: the commands and the global options. */
void cli_usage(FILE *out);

/* `llmlat report ARGS`: the exit status. */
int report_command(int argc, char **argv);
/* `llmlat report --help`. */
void report_usage(FILE *out);

/* `llmlat compare ARGS`: the exit status. */
int compare_command(int argc, char **argv);
/* `llmlat compare --help`. */
void compare_usage(FILE *out);

/* `llmlat bench ARGS`: the exit status. */
int bench_command(int argc, char **argv);
/* `llmlat bench --help`. */
void bench_usage(FILE *out);

#endif
