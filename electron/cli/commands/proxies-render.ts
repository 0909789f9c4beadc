/** `egress-desk proxies render`: the preview of a launch, written to files, no host touched. */
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { ProxySpecSchema } from '../../../shared/proxy.js';
import { writeFileAtomic } from '../../services/config/atomic-write.js';
import { CPU_MODES, type CpuMode } from '../../services/provider/kvm/xml/domain-xml.js';
import { renderProxy, resolveSpec } from '../../services/provider/kvm/render.js';
import { CliError, EXIT } from '../io.js';
import { loadKvmConfig } from '../load-config.js';
import type { CommandKit } from '../kit.js';
import { addSpecOptions, specFromOptions, type SpecOptions } from './spec-options.js';

interface RenderOptions extends SpecOptions {
  out: string;
  basePath?: string;
  domainType: 'kvm' | 'qemu';
  cpuMode?: CpuMode;
}

/** Where libvirt's default dir pool keeps volumes: the predicted base path of a preview. */
const DEFAULT_POOL_DIR = '/var/lib/libvirt/images';

export function registerRenderCommand(proxies: Command, kit: CommandKit): void {
  const cmd = proxies
    .command('render')
    .description('write everything a launch would send to libvirt into a directory, without touching any host')
    .argument('<name>', 'proxy name (a lowercase DNS label)')
    .requiredOption(
      '--out <dir>',
      'directory to write domain.xml, overlay-volume.xml, seed-volume.xml, seed.iso, user-data, meta-data, vendor-data',
    );
  addSpecOptions(cmd)
    .option(
      '--base-path <path>',
      `the base volume's path on the host (default: ${DEFAULT_POOL_DIR}/<base volume>; a launch looks it up)`,
    )
    .addOption(
      new Option('--domain-type <type>', 'kvm, or qemu (TCG); a launch picks it from the host')
        .choices(['kvm', 'qemu'])
        .default('kvm'),
    )
    .addOption(new Option('--cpu-mode <mode>', 'CPU model').choices([...CPU_MODES]))
    .action(
      kit.action(async (ctx, name: string, opts: RenderOptions) => {
        const config = await loadKvmConfig(ctx);
        const spec = ProxySpecSchema.parse(specFromOptions(name, opts));
        const hostName = spec.host ?? config.hosts[0]!.name;
        const host = config.hosts.find((h) => h.name === hostName);
        if (!host)
          throw new CliError(
            `no host named ${JSON.stringify(hostName)} (known: ${config.hosts.map((h) => h.name).join(', ')})`,
            EXIT.failed,
          );
        const resolved = resolveSpec(spec, config, host);
        const base = `${DEFAULT_POOL_DIR}/egress-base-${resolved.image.sha256}.${resolved.image.format === 'qcow2' ? 'qcow2' : 'img'}`;
        const rendered = renderProxy(resolved, {
          domainType: opts.domainType,
          ...(opts.cpuMode ? { cpuMode: opts.cpuMode } : {}),
          basePath: opts.basePath ?? base,
          createdAt: new Date(),
        });
        const out = resolve(ctx.io.cwd, opts.out);
        await mkdir(out, { recursive: true, mode: 0o700 });
        const files: Array<[string, string | Buffer]> = [
          ['domain.xml', rendered.domainXml],
          ['overlay-volume.xml', rendered.overlayVolumeXml],
          ['seed-volume.xml', rendered.seedVolumeXml],
          ['seed.iso', rendered.seedIso],
          // user-data holds the proxy's credentials: every file is written 0600.
          ['user-data', rendered.userData],
          ['meta-data', rendered.metaData],
          ['vendor-data', rendered.vendorData],
        ];
        for (const [file, data] of files) await writeFileAtomic(join(out, file), data);
        ctx.io.stdout(`rendered proxy ${spec.name} (instance ${rendered.id}) on host ${host.name} into ${out}:\n`);
        for (const [file, data] of files) ctx.io.stdout(`  ${file.padEnd(20)} ${data.length} bytes\n`);
        if (resolved.credentials)
          ctx.io.stdout(
            `user-data holds generated BasicAuth credentials for user "${resolved.credentials.username}" (a launch generates its own)\n`,
          );
        return EXIT.ok;
      }),
    );
}
