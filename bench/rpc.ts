/** (a) sequential and (b) pipelined CONNECT_GET_LIB_VERSION through our client. */
import { LibvirtClient } from '../electron/libvirt/index.js';
import { LocalSocketDialer } from '../electron/transport/index.js';

async function open(socketPath: string): Promise<LibvirtClient> {
  return LibvirtClient.connect(new LocalSocketDialer(socketPath), { uri: 'qemu:///system', keepalive: false });
}

/** Calls per second, one call at a time. */
export async function oursSequentialRate(socketPath: string, count: number): Promise<number> {
  const client = await open(socketPath);
  try {
    await client.call('CONNECT_GET_LIB_VERSION');
    const start = performance.now();
    for (let i = 0; i < count; i++) await client.call('CONNECT_GET_LIB_VERSION');
    return count / ((performance.now() - start) / 1000);
  } finally {
    await client.close();
  }
}

/** Calls per second with `window` calls in flight on one connection. */
export async function oursPipelinedRate(socketPath: string, count: number, window: number): Promise<number> {
  const client = await open(socketPath);
  try {
    await client.call('CONNECT_GET_LIB_VERSION');
    let next = 0;
    const start = performance.now();
    const worker = async () => {
      while (next < count) {
        next++;
        await client.call('CONNECT_GET_LIB_VERSION');
      }
    };
    await Promise.all(Array.from({ length: window }, worker));
    return count / ((performance.now() - start) / 1000);
  } finally {
    await client.close();
  }
}
