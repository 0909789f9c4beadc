/** `egress-desk proxies …`. */
import type { Command } from 'commander';
import type { CommandKit } from '../kit.js';
import { registerLaunchCommand } from './proxies-launch.js';
import { registerManageCommands } from './proxies-manage.js';
import { registerLifecycleCommands } from './proxies-lifecycle.js';
import { registerFleetCommands } from './proxies-fleet.js';
import { registerRenderCommand } from './proxies-render.js';
import { registerTopCommand } from './proxies-top.js';
import { registerStatsCommand } from './proxies-stats.js';
import { registerClientSettingsCommand } from './proxies-client.js';
import { registerReplaceCommand } from './proxies-replace.js';

export function registerProxyCommands(program: Command, kit: CommandKit): void {
  const proxies = program.command('proxies').description('launch, list, inspect and delete egress proxies');
  registerLaunchCommand(proxies, kit);
  registerManageCommands(proxies, kit);
  registerLifecycleCommands(proxies, kit);
  registerFleetCommands(proxies, kit);
  registerRenderCommand(proxies, kit);
  registerTopCommand(proxies, kit);
  registerStatsCommand(proxies, kit);
  registerClientSettingsCommand(proxies, kit);
  registerReplaceCommand(proxies, kit);
}
