import { runAccountsCommand } from './accounts';
import { runKeysCommand } from './keys';
import { runMcpCommand } from './mcp';
import { processIo, type CliIo } from './io';
import { runPricesCommand } from './prices';
import { runSecretsCommand } from './secrets';
import { runServeCommand } from './serve';
import { VERSION } from '../core/version';

const HELP = `atelier ${VERSION}: a local image gateway with an OpenAI-compatible /v1 API

usage:
  atelier serve [--host 127.0.0.1] [--port 8787] [--data-dir DIR]   run the gateway and the web studio
  atelier keys create --name NAME [--group G] [--data-dir DIR]      make an API key (printed once)
  atelier keys list | disable ID | enable ID | delete ID
  atelier accounts list | add-key | add-simulator | set | enable | disable | remove
                                                                     upstream accounts (secrets in the OS keychain)
  atelier prices list | set MODEL --image-output 30 ...             the price table used for cost
  atelier secrets generate-key | rotate-key                         the key of secrets kept in the database
                                                                     (servers without a keychain; docs/team.md)
  atelier mcp [--url URL] [--key KEY]                               an MCP server on stdio for agent hosts
                                                                     (talks to the running gateway; docs/mcp.md)

Data lives in the platform's app-data folder unless --data-dir or ATELIER_DATA_DIR says otherwise;
serve, keys, accounts, prices and secrets take --database postgres://... (or ATELIER_DATABASE_URL)
to work on a team gateway's PostgreSQL instead (docs/team.md).`;

export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      return runServeCommand(rest, io);
    case 'keys':
      return runKeysCommand(rest, io);
    case 'prices':
      return runPricesCommand(rest, io);
    case 'accounts':
      return runAccountsCommand(rest, io);
    case 'secrets':
      return runSecretsCommand(rest, io);
    case 'mcp':
      return runMcpCommand(rest, io);
    case '--version':
    case '-v':
      io.stdout(VERSION);
      return 0;
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      io.stdout(HELP);
      return 0;
    default:
      io.stderr(`atelier: unknown command '${command}'\n\n${HELP}`);
      return 2;
  }
}
