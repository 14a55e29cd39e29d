import type { Command, Option } from "commander";
import { CliError, EXIT } from "./errors.ts";
import type { Io } from "./io.ts";

export const SHELLS = ["bash", "zsh", "fish"] as const;
type Shell = (typeof SHELLS)[number];

/** One command of the tree: its path of names (`forms list`), its subcommands and its long options. */
interface Node {
  path: string[];
  description: string;
  subcommands: { name: string; description: string }[];
  options: { flag: string; description: string }[];
}

const longFlags = (options: readonly Option[]) => options.filter((o) => o.long && !o.hidden).map((o) => ({ flag: o.long!, description: o.description }));

/** Every command of the program, read from commander itself, so that completion never lags behind the commands. */
function walk(command: Command, path: string[] = [], inherited: Node["options"] = []): Node[] {
  const own = longFlags(command.options);
  const options = [...inherited, ...own, { flag: "--help", description: "show help" }];
  const visible = command.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden);
  const node: Node = { path, description: command.description(), subcommands: visible.map((c) => ({ name: c.name(), description: c.description() })), options };
  // The program's global options (--db, --url, --json, ...) are taken after any command too.
  const passDown = path.length === 0 ? own.filter((o) => o.flag !== "--version") : inherited;
  return [node, ...visible.flatMap((c) => walk(c, [...path, c.name()], passDown))];
}

const quoteSh = (text: string) => `'${text.replace(/'/g, "'\\''")}'`;

function bash(nodes: Node[]): string {
  const known = nodes.filter((n) => n.path.length > 0).map((n) => quoteSh(n.path.join(" ")));
  const cases = nodes.map(
    (n) => `    ${quoteSh(n.path.join(" "))}) words=${quoteSh([...n.subcommands.map((s) => s.name), ...n.options.map((o) => o.flag)].join(" "))} ;;`,
  );
  return `# formsvc completion for bash: source it, or put it in /etc/bash_completion.d/formsvc
_formsvc() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" next w i words=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    [[ "$w" == -* ]] && continue
    next="\${path:+$path }$w"
    case "$next" in
      ${known.join("|")}) path="$next" ;;
    esac
  done
  case "$path" in
${cases.join("\n")}
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _formsvc formsvc
`;
}

function zsh(nodes: Node[]): string {
  // zsh runs bash completion functions through bashcompinit: one tree, one script to keep true.
  return `#compdef formsvc
# formsvc completion for zsh: put it in a directory of $fpath as _formsvc, or source it from ~/.zshrc
autoload -U +X bashcompinit && bashcompinit
${bash(nodes)}`;
}

function fish(nodes: Node[]): string {
  const quote = (text: string) => `'${text.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
  const lines = ["# formsvc completion for fish: put it in ~/.config/fish/completions/formsvc.fish", "complete -c formsvc -f"];
  for (const node of nodes) {
    // The words typed so far must be exactly this node's path: fish's helper tests the last command word.
    const condition =
      node.path.length === 0
        ? "__fish_use_subcommand"
        : `__fish_seen_subcommand_from ${node.path[node.path.length - 1]}; and not __fish_seen_subcommand_from ${node.subcommands.map((s) => s.name).join(" ") || "__none__"}${node.path.length > 1 ? `; and __fish_seen_subcommand_from ${node.path[0]}` : ""}`;
    for (const sub of node.subcommands) lines.push(`complete -c formsvc -n ${quote(condition)} -a ${quote(sub.name)} -d ${quote(sub.description)}`);
    for (const option of node.options)
      lines.push(`complete -c formsvc -n ${quote(condition)} -l ${quote(option.flag.replace(/^--/, ""))} -d ${quote(option.description)}`);
  }
  return `${lines.join("\n")}\n`;
}

/** The completion script for `shell`, generated from the program's own commands. */
export function completionScript(program: Command, shell: string): string {
  if (!(SHELLS as readonly string[]).includes(shell)) throw new CliError(`the shell must be one of ${SHELLS.join(", ")}, not "${shell}"`, EXIT.usage);
  const nodes = walk(program);
  return { bash, zsh, fish }[shell as Shell](nodes);
}

export function completionCommand(program: Command, io: Io): void {
  program
    .command("completion <shell>")
    .description("print a shell completion script: bash, zsh or fish")
    .addHelpText(
      "after",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: ${fpath[1]} is for zsh to expand, in the example command.
      '\nExamples:\n  formsvc completion bash | sudo tee /etc/bash_completion.d/formsvc\n  formsvc completion zsh > "${fpath[1]}/_formsvc"\n  formsvc completion fish > ~/.config/fish/completions/formsvc.fish\n',
    )
    .action((shell: string) => io.out(completionScript(program, shell)));
}
