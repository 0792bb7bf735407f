#!/usr/bin/env python3
"""The man page (tools/llmlat.1) says what `--help` says: the same commands,
and for each command and for llmlat itself the same options with the same
value names, both ways; and it renders without a warning.

Environment: LLMLAT (the command), LLMLAT_MAN (the man page).

`llmlat --help` lists the commands under "Commands:" and the global options
under "Options:"; `llmlat COMMAND --help` lists the command's options under
"Options:" (each entry "  --name VALUE   text", aliases as "-h, --help").
The man page has one `.SS COMMAND` section per command under `.SH
COMMANDS`, the global options under `.SH OPTIONS`, and each option as a
`.TP` entry whose tag is the option as the help writes it, e.g.

    .TP
    \\fB\\-\\-convention\\fR \\fINAME\\fR

Every failure says what to add (or remove) where.
"""

import os
import re
import shutil
import subprocess
import unittest

LLMLAT = os.environ.get("LLMLAT", "llmlat")
MAN = os.environ.get("LLMLAT_MAN", os.path.join(os.path.dirname(__file__), "..", "..",
                                                "tools", "llmlat.1"))
MAN_NAME = "tools/llmlat.1"
ENTRY_HEAD = re.compile(r"^  (\S(?:.*?\S)?)(?: {2,}|$)")
OPTION = re.compile(r"^(-{1,2}[A-Za-z0-9][A-Za-z0-9-]*)(?:[ =](\S+))?$")


def run(*args):
    return subprocess.run([LLMLAT, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=60)


def section(text, title):
    """The lines of a help's "Title:" list, up to the blank line."""
    lines = text.splitlines()
    try:
        start = lines.index(title + ":") + 1
    except ValueError:
        return []
    out = []
    for line in lines[start:]:
        if not line.strip():
            break
        out.append(line)
    return out


def options_of(heads):
    """{option: value name or None} from entry heads such as "-h, --help" or
    "--convention NAME"."""
    out = {}
    for head in heads:
        for alias in head.split(", "):
            m = OPTION.match(alias.strip())
            if m:
                out[m.group(1)] = m.group(2)
    return out


def help_options(text):
    heads = [m.group(1) for m in map(ENTRY_HEAD.match, section(text, "Options"))
             if m and m.group(1).startswith("-")]
    return options_of(heads)


def help_commands(text):
    return [m.group(1) for m in map(ENTRY_HEAD.match, section(text, "Commands")) if m]


def unroff(line):
    """A roff line as it reads: font escapes dropped, \\- as -."""
    line = re.sub(r"\\f(?:[BIRP]|\(\w\w|\[\w*\])", "", line)
    line = line.replace("\\-", "-").replace("\\(em", "--").replace("\\&", "")
    if line.startswith((".B ", ".I ", ".BR ", ".IR ", ".BI ")):
        line = line.split(" ", 1)[1]
    return line.strip()


def man_structure(text):
    """{"SYNOPSIS": [lines], "OPTIONS": {opt: value}, "commands": {name:
    {opt: value}}} of the man page."""
    sections, current, sub = {}, None, None
    commands = {}
    tags = {}
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith(".SH "):
            current, sub = line[4:].strip().strip('"'), None
            sections.setdefault(current, [])
            continue
        if line.startswith(".SS ") and current == "COMMANDS":
            sub = unroff(line[4:].strip().strip('"'))
            commands[sub] = {}
            continue
        if current is None:
            continue
        sections[current].append(line)
        if line.startswith(".TP") and i + 1 < len(lines):
            tag = unroff(lines[i + 1])
            if tag.startswith("-"):
                target = commands[sub] if current == "COMMANDS" and sub else \
                    tags.setdefault(current, {})
                target.update(options_of([tag]))
    return {"SYNOPSIS": [unroff(l) for l in sections.get("SYNOPSIS", [])],
            "OPTIONS": tags.get("OPTIONS", {}), "commands": commands}


def tp_entry(option, value):
    tag = "\\fB%s\\fR" % option.replace("-", "\\-")
    if value:
        tag += " \\fI%s\\fR" % value
    return ".TP\n%s\nWhat it does.\n" % tag


def shown(option, value):
    return option + (" " + value if value else "")


class ManPageTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(MAN, encoding="utf-8") as f:
            cls.man_text = f.read()
        cls.man = man_structure(cls.man_text)
        p = run("--help")
        assert p.returncode == 0, p.stderr
        cls.main_help = p.stdout

    def compare(self, what, help_cmd, help_opts, man_opts, where):
        """Both ways; one failure listing every difference, each with its fix."""
        problems = []
        for opt, value in sorted(help_opts.items()):
            if opt not in man_opts:
                problems.append("`%s` lists %s, but %s does not: add to its %s\n%s"
                                % (help_cmd, shown(opt, value), MAN_NAME, where,
                                   tp_entry(opt, value)))
            elif man_opts[opt] != value:
                problems.append("`%s` writes %s, but %s's %s writes %s: make the .TP tag\n%s"
                                % (help_cmd, shown(opt, value), MAN_NAME, where,
                                   shown(opt, man_opts[opt]), tp_entry(opt, value)))
        for opt, value in sorted(man_opts.items()):
            if opt not in help_opts:
                problems.append("%s documents %s in its %s, but `%s` does not list it: remove "
                                "its .TP entry, or add the option to %s (and so to its --help)"
                                % (MAN_NAME, shown(opt, value), where, help_cmd, what))
        if problems:
            self.fail("\n\n".join(problems))

    def test_commands(self):
        commands = help_commands(self.main_help)
        self.assertTrue(commands, "`llmlat --help` lists no command under 'Commands:'")
        synopsis = "\n".join(self.man["SYNOPSIS"])
        for cmd in commands:
            with self.subTest(command=cmd):
                if cmd not in self.man["commands"]:
                    self.fail("`llmlat --help` lists the command %s (tools/llmlat.c), but %s "
                              "has no section for it: add under .SH COMMANDS\n.SS %s\n.B llmlat "
                              "%s\n[\\fIOPTIONS\\fR] ...\n.PP\nWhat it does.\nand a .TP entry "
                              "per option of `llmlat %s --help`" % (cmd, MAN_NAME, cmd, cmd, cmd))
                if "llmlat " + cmd not in synopsis:
                    self.fail("%s's SYNOPSIS does not show `llmlat %s`: add\n.B llmlat %s\n"
                              "[\\fIOPTIONS\\fR] ...\n.br" % (MAN_NAME, cmd, cmd))
        for cmd in self.man["commands"]:
            if cmd not in commands:
                self.fail("%s has a section '.SS %s', but `llmlat --help` lists no such "
                          "command: remove the section, or add the command to COMMANDS in "
                          "tools/llmlat.c" % (MAN_NAME, cmd))

    def test_each_command_s_options(self):
        for cmd in help_commands(self.main_help):
            with self.subTest(command=cmd):
                p = run(cmd, "--help")
                self.assertEqual(p.returncode, 0, "`llmlat %s --help` failed: %s" % (cmd, p.stderr))
                self.assertTrue(p.stdout.startswith("Usage: llmlat %s" % cmd),
                                "`llmlat %s --help` does not start with its usage" % cmd)
                self.assertEqual(run("help", cmd).stdout, p.stdout,
                                 "`llmlat help %s` differs from `llmlat %s --help`" % (cmd, cmd))
                opts = help_options(p.stdout)
                self.assertIn("--help", opts, "`llmlat %s --help` lists no --help" % cmd)
                self.compare("`llmlat %s` (tools/)" % cmd,
                             "llmlat %s --help" % cmd, opts,
                             self.man["commands"].get(cmd, {}), "'.SS %s' section" % cmd)

    def test_global_options(self):
        opts = help_options(self.main_help)
        self.assertIn("--version", opts)
        self.compare("main() in tools/llmlat.c", "llmlat --help", opts, self.man["OPTIONS"],
                     ".SH OPTIONS section")

    def test_version(self):
        version = run("--version").stdout.split()[-1]
        th = re.search(r'^\.TH .*"llmlat ([^"]+)"', self.man_text, re.M)
        self.assertTrue(th, "%s has no .TH line naming \"llmlat VERSION\"" % MAN_NAME)
        self.assertEqual(th.group(1), version,
                         "%s's .TH says llmlat %s, the command is %s: update the .TH line"
                         % (MAN_NAME, th.group(1), version))

    def test_renders_without_warnings(self):
        groff = shutil.which("groff")
        self.assertIsNotNone(groff, "groff is needed to check the man page: install "
                                    "groff-base (scripts/setup-deps does)")
        p = subprocess.run([groff, "-man", "-Tutf8", "-ww", "-z", MAN], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
        self.assertEqual((p.returncode, p.stderr), (0, ""), "groff warns about %s" % MAN_NAME)


class ParserTest(unittest.TestCase):
    """The parsing above, on made-up help and roff."""

    def test_help_entries(self):
        text = ("Usage: x\n\nOptions:\n  --convention NAME    one\n                       more\n"
                "  --a-very-long-option-name VALUE\n                       text\n"
                "  -h, --help           this help\n\nA trace: -x is not an option\n")
        self.assertEqual(help_options(text), {"--convention": "NAME", "-h": None,
                                              "--help": None, "--a-very-long-option-name":
                                              "VALUE"})

    def test_man_entries(self):
        roff = (".SH SYNOPSIS\n.B llmlat report\n.SH COMMANDS\n.SS report\n.TP\n"
                "\\fB\\-\\-input\\fR \\fIFORMAT\\fR\ntext\n.TP\n\\fB\\-h\\fR, \\fB\\-\\-help\\fR\n"
                "x\n.SH OPTIONS\n.TP\n\\fB\\-\\-version\\fR\nv\n.SH EXIT STATUS\n.TP\n.B 0\nok\n")
        m = man_structure(roff)
        self.assertEqual(m["commands"], {"report": {"--input": "FORMAT", "-h": None,
                                                    "--help": None}})
        self.assertEqual(m["OPTIONS"], {"--version": None})
        self.assertIn("llmlat report", m["SYNOPSIS"])


if __name__ == "__main__":
    unittest.main()
