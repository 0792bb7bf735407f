/* llmlat: the command-line face of the library. */
#include <string.h>

#include "cli.h"
#include "llmlat.h"

void cli_usage(FILE *out)
{
    fputs("Usage: llmlat report [OPTIONS] TRACE|-\n"
          "       llmlat --help | --version\n"
          "\n"
          "Reads the timestamps of streamed LLM responses (a trace file, or - for\n"
          "standard input) and reports TTFT, TPOT, ITL, E2E latency, throughput and\n"
          "goodput, computed as the chosen tool computes them.\n"
          "\n"
          "Options of report:\n"
          "  --convention NAME    default, vllm, aiperf, sglang or llmperf (default:\n"
          "                       default)\n"
          "  --mode MODE          exact or bounded (default: exact)\n"
          "  --relative-error A   the bounded mode's relative error (default: 0.01)\n"
          "  --percentiles LIST   percentiles to report, comma-separated (default:\n"
          "                       50,90,95,99)\n"
          "  --goodput SLOS       service levels in ms for goodput, comma-separated\n"
          "                       NAME:MS with NAME ttft, tpot or e2el\n"
          "  --duration S         benchmark wall time in seconds for the rates (default:\n"
          "                       the trace's \"duration\", else from its timestamps)\n"
          "  --format FORMAT      text, json or prometheus (default: text)\n"
          "  --input FORMAT       what the file is: trace, vllm, aiperf, genai-perf,\n"
          "                       sglang or llmperf (default: auto, told from the content)\n"
          "  --run N              the run to read of a file with several (default: the\n"
          "                       last)\n"
          "  -h, --help           this help\n"
          "\n"
          "A trace is a JSON array of requests, an object {\"requests\": [...],\n"
          "\"duration\": S}, or JSON Lines with one request per line. A request:\n"
          "  {\"start\": S, \"events\": [[T, K], ...], \"input_tokens\": N,\n"
          "   \"output_tokens\": N, \"ok\": true, \"end\": S}\n"
          "with times in seconds and K the tokens of each streamed chunk. A request\n"
          "whose times go backwards or that has events after its end is rejected\n"
          "(named on stderr, counted in the report). Other tools' result files are\n"
          "read as docs/importers.md says.\n"
          "\n"
          "Exit status: 0 success, 1 runtime failure, 2 bad usage or malformed trace.\n"
          "Details: docs/cli.md, docs/importers.md and docs/report-json.md.\n",
          out);
}

int main(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : NULL;
    if (!cmd) {
        cli_usage(stderr);
        return EXIT_USAGE;
    }
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
        cli_usage(stdout);
        return EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("llmlat %s\n", llmlat_version_string());
        return EXIT_OK;
    }
    if (strcmp(cmd, "report") == 0)
        return report_command(argc - 2, argv + 2);
    fprintf(stderr, "llmlat: unknown command '%s' (see llmlat --help)\n", cmd);
    return EXIT_USAGE;
}
