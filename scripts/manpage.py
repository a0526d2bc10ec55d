#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A man page (man(7) macros) from a command's own parser: the JSON that swift-argument-parser's
`--experimental-dump-help` prints, so `--help` and `man` say the same things.

Usage: TOOL --experimental-dump-help | manpage.py --section 1 --date 2026-11-27 --source "sportsensord 0.1.0"
The page goes to standard output. Every subcommand (and theirs) gets a section of the page.
"""

import argparse
import json
import sys


def roff(text):
    """Text as roff: backslashes and hyphens escaped, no line that a control character starts."""
    lines = []
    for line in text.replace("\\", "\\e").replace("-", "\\-").split("\n"):
        if line.startswith((".", "'")):
            line = "\\&" + line
        lines.append(line)
    return "\n".join(lines)


def flag_name(name):
    prefix = "--" if name["kind"] == "long" else "-"
    return "\\fB" + roff(prefix + name["name"]) + "\\fR"


def visible(arguments):
    return [a for a in arguments or [] if a.get("shouldDisplay", True)]


def usage(argument):
    """How one argument is written in a synopsis: [--name value], <value> …"""
    if argument["kind"] == "positional":
        text = "\\fI" + roff(argument.get("valueName", "value")) + "\\fR"
    else:
        text = flag_name(argument.get("preferredName") or argument["names"][0])
        if argument["kind"] == "option":
            text += " \\fI" + roff(argument.get("valueName", "value")) + "\\fR"
    if argument.get("isRepeating"):
        text += " ..."
    return "[" + text + "]" if argument.get("isOptional") else text


def describe_arguments(out, arguments):
    for argument in visible(arguments):
        out.append(".TP")
        if argument["kind"] == "positional":
            out.append("\\fI" + roff(argument.get("valueName", "value")) + "\\fR")
        else:
            names = ", ".join(flag_name(n) for n in argument.get("names", []))
            if argument["kind"] == "option":
                names += " \\fI" + roff(argument.get("valueName", "value")) + "\\fR"
            out.append(names)
        text = argument.get("abstract", "")
        if argument.get("discussion"):
            text = (text + "\n" if text else "") + argument["discussion"]
        if argument.get("allValues"):
            text += "\n(values: " + ", ".join(argument["allValues"]) + ")"
        if "defaultValue" in argument and argument["kind"] != "flag":
            text += "\n(default: " + argument["defaultValue"] + ")"
        out.append(roff(text.strip()) if text.strip() else "\\&")


def describe_command(out, command, path, depth):
    """A subcommand: a subsection with its synopsis, abstract, discussion and options."""
    full = path + [command["commandName"]]
    out.append('.SS "' + roff(" ".join(full)) + '"')
    synopsis = " ".join(usage(a) for a in visible(command.get("arguments")))
    out.append("\\fB" + roff(" ".join(full)) + "\\fR " + synopsis)
    out.append(".PP")
    out.append(roff(command.get("abstract", "")))
    if command.get("discussion"):
        out.append(".PP")
        out.append(roff(command["discussion"]))
    if visible(command.get("arguments")):
        out.append(".RS")
        describe_arguments(out, command.get("arguments"))
        out.append(".RE")
    for sub in command.get("subcommands") or []:
        if sub.get("shouldDisplay", True) and sub["commandName"] != "help":
            describe_command(out, sub, full, depth + 1)


def page(tool, section, date, source):
    command = tool["command"]
    name = command["commandName"]
    out = [
        '.TH "' + name.upper() + '" "' + str(section) + '" "' + date + '" "' + roff(source) + '" "User Commands"',
        ".SH NAME",
        roff(name) + " \\- " + roff(command.get("abstract", "")),
        ".SH SYNOPSIS",
    ]
    subcommands = [s for s in command.get("subcommands") or [] if s.get("shouldDisplay", True)]
    synopsis = " ".join(usage(a) for a in visible(command.get("arguments")))
    out.append("\\fB" + roff(name) + "\\fR " + ("\\fIsubcommand\\fR " if subcommands else "") + synopsis)
    if command.get("discussion") or command.get("abstract"):
        out.append(".SH DESCRIPTION")
        out.append(roff(command.get("abstract", "")))
        if command.get("discussion"):
            out.append(".PP")
            out.append(roff(command["discussion"]))
    if visible(command.get("arguments")):
        out.append(".SH OPTIONS")
        describe_arguments(out, command.get("arguments"))
    if subcommands:
        out.append(".SH COMMANDS")
        out.append("Each command takes \\fB\\-\\-help\\fR as well.")
        for sub in subcommands:
            if sub["commandName"] != "help":
                describe_command(out, sub, [name], 1)
    out.append(".SH SEE ALSO")
    out.append("/usr/share/doc/sportsensord/OPERATIONS.md")
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--section", default="1")
    parser.add_argument("--date", required=True)
    parser.add_argument("--source", required=True)
    args = parser.parse_args()
    try:
        tool = json.load(sys.stdin)
    except json.JSONDecodeError as error:
        sys.exit("manpage.py: standard input is not --experimental-dump-help JSON: " + str(error))
    sys.stdout.write(page(tool, args.section, args.date, args.source))


if __name__ == "__main__":
    main()
