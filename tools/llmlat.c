/* llmlat: the command-line face of the library. */
#include <string.h>

#include "cli.h"
#include "llmlat.h"
#include "usage.h"

/* The commands: `llmlat --help` lists them, `llmlat help NAME` and
 * `llmlat NAME --help` show each one's own help (tests/cli/test_manpage.py
 * holds the man page, tools/llmlat.1, to these). */
static const struct {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv);
    void (*usage)(FILE *out);
} COMMANDS[] = {
    { "report", "TTFT, TPOT, ITL, E2E, throughput and goodput of a run (or of a window or "
                "slices of it), as the chosen tool computes them; also as an HTML page, a "
                "Chrome trace, or one row per request",
      report_command, report_usage },
    { "compare", "two runs side by side, with bootstrap intervals of the differences and "
                 "--fail-if rules for CI",
      compare_command, compare_usage },
    { "bench", "measure an OpenAI-compatible server: streamed requests sent on a schedule, "
               "timestamps taken at the socket, the numbers as report gives them",
      bench_command, bench_usage },
};

#define N_COMMANDS (sizeof COMMANDS / sizeof COMMANDS[0])

void cli_usage(FILE *out)
{
    fputs("Usage: llmlat report [OPTIONS] TRACE|-\n"
          "       llmlat compare [OPTIONS] BASE CAND\n"
          "       llmlat bench [OPTIONS] --base-url URL\n"
          "       llmlat COMMAND --help\n"
          "       llmlat --help | --version\n"
          "\n"
          "Latency metrics of streamed LLM responses (TTFT, TPOT, ITL, E2E latency,\n"
          "throughput, goodput) under the conventions of vLLM, AIPerf, SGLang,\n"
          "LLMPerf, GuideLLM and inference-perf.\n"
          "\n"
          "Commands:\n",
          out);
    for (size_t i = 0; i < N_COMMANDS; i++)
        usage_entry(out, COMMANDS[i].name, COMMANDS[i].summary);
    fputs("\n"
          "Options:\n",
          out);
    usage_entry(out, "-h, --help", "this help");
    usage_entry(out, "--version", "the version of the command and of its library");
    fputs("\n"
          "`llmlat COMMAND --help` (or `llmlat help COMMAND`) shows the options of a\n"
          "command; `man llmlat` describes them all.\n"
          "Exit status: 0 success, 1 runtime failure (or a broken --fail-if rule, or\n"
          "a server bench cannot reach), 2 bad usage or malformed input, 130 bench\n"
          "interrupted.\n",
          out);
}

static int find_command(const char *name)
{
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (strcmp(name, COMMANDS[i].name) == 0)
            return (int)i;
    return -1;
}

static int unknown_command(const char *name)
{
    fprintf(stderr, "llmlat: unknown command '%s' (see llmlat --help)\n", name);
    return EXIT_USAGE;
}

int main(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : NULL;
    if (!cmd) {
        cli_usage(stderr);
        return EXIT_USAGE;
    }
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
        if (strcmp(cmd, "help") == 0 && argc > 2) {
            int i = find_command(argv[2]);
            if (i < 0)
                return unknown_command(argv[2]);
            COMMANDS[i].usage(stdout);
            return EXIT_OK;
        }
        cli_usage(stdout);
        return EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("llmlat %s\n", llmlat_version_string());
        return EXIT_OK;
    }
    int i = find_command(cmd);
    if (i < 0)
        return unknown_command(cmd);
    return COMMANDS[i].run(argc - 2, argv + 2);
}
