/** The inspector's Domain XML: libvirt's XML highlighted, with the metadata element's lines marked. */
import { useMemo } from 'react';
import type { ProxyInspectionView } from '../../../shared/proxies.js';
import { metadataLineRange } from '../../xml-metadata-range.js';
import { CodeBlock } from './CodeBlock.js';
import { copyText } from '../../clipboard.js';

export const METADATA_REGION = 'Egress Desk metadata';

export function XmlPanel({ inspection }: { inspection: ProxyInspectionView }) {
  const xml = inspection.domainXml;
  const range = useMemo(() => metadataLineRange(xml), [xml]);
  return (
    <div className="inspector-code">
      <div className="config-actions">
        <button type="button" onClick={() => void copyText(xml, `the domain XML of ${inspection.proxy.name}`)}>
          Copy XML
        </button>
        <span className="hint">
          As libvirt returns it (the live definition while the VM runs).{' '}
          {range
            ? `The metadata element is on lines ${range.start + 1}–${range.end + 1}, highlighted.`
            : 'It has no metadata element.'}
        </span>
      </div>
      <CodeBlock
        language="xml"
        text={xml}
        label={`Domain XML of ${inspection.proxy.name}`}
        region={range ? { range, label: METADATA_REGION } : undefined}
      />
    </div>
  );
}
