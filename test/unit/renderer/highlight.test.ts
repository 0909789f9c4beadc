/**
 * The inspector's pure parts: lowlight's tree split into lines and rendered to React
 * (renderer/highlight.ts), and the domain XML's metadata line range
 * (renderer/xml-metadata-range.ts), over hand-written XML and the builders' real output.
 */
import fc from 'fast-check';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { withDefaults } from '../../../shared/config.js';
import { renderProxy, resolveSpec } from '../../../electron/services/provider/kvm/render.js';
import { type HastNode, hastToReact, highlightLines, highlightTree, splitLines } from '../../../renderer/highlight.js';
import { metadataLineRange } from '../../../renderer/xml-metadata-range.js';

/** The text of one split line. */
function text(nodes: readonly HastNode[]): string {
  return nodes
    .map((n) => (n.type === 'text' ? n.value : n.type === 'element' ? text(n.children as HastNode[]) : ''))
    .join('');
}

/** Every class a line's tokens carry, outermost first. */
function classes(nodes: readonly HastNode[]): string[] {
  return nodes.flatMap((n) =>
    n.type === 'element'
      ? [...((n.properties.className as string[] | undefined) ?? []), ...classes(n.children as HastNode[])]
      : [],
  );
}

const markup = (language: 'xml' | 'yaml', source: string) =>
  highlightLines(language, source).map((line) => renderToStaticMarkup(createElement('div', null, ...line)));

describe('splitLines', () => {
  it('keeps every character, one line per newline', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.constantFrom(
            '<a x="1">',
            '</a>',
            '<!-- c\n -->',
            '<![CDATA[\n<b>]]>',
            'text',
            '\n',
            ' ',
            '<?pi x?>',
            '&amp;',
            '<b/>',
          ),
          { maxLength: 40 },
        ),
        (parts) => {
          const source = parts.join('');
          const lines = splitLines(highlightTree('xml', source).children);
          expect(lines.map(text).join('\n')).toBe(source);
          expect(lines.length).toBe(source.split('\n').length);
        },
      ),
    );
  });

  it('cuts a multi-line comment into one comment token per line', () => {
    const lines = splitLines(highlightTree('xml', '<a>\n<!-- one\ntwo -->\n</a>').children);
    expect(lines.map(text)).toEqual(['<a>', '<!-- one', 'two -->', '</a>']);
    expect(classes(lines[1]!)).toEqual(['hljs-comment']);
    expect(classes(lines[2]!)).toEqual(['hljs-comment']);
    expect(classes(lines[0]!)).toEqual(['hljs-tag', 'hljs-name']);
  });

  it('cuts a tag whose attributes span lines, keeping the nesting', () => {
    const lines = splitLines(highlightTree('xml', '<disk type="volume"\n      device="cdrom">').children);
    expect(lines.map(text)).toEqual(['<disk type="volume"', '      device="cdrom">']);
    expect(classes(lines[1]!)).toEqual(['hljs-tag', 'hljs-attr', 'hljs-string']);
  });

  it('gives an empty text one empty line, and keeps empty lines', () => {
    expect(splitLines(highlightTree('xml', '').children)).toEqual([[]]);
    expect(splitLines(highlightTree('xml', 'a\n\nb').children).map(text)).toEqual(['a', '', 'b']);
  });
});

describe('hastToReact', () => {
  it('renders tokens as spans with their classes, text escaped', () => {
    const [first] = markup('xml', '<name a="&lt;script&gt;">x</name>');
    expect(first).toBe(
      '<div><span class="hljs-tag">&lt;<span class="hljs-name">name</span> <span class="hljs-attr">a</span>=<span class="hljs-string">&quot;<span class="hljs-symbol">&amp;lt;</span>script<span class="hljs-symbol">&amp;gt;</span>&quot;</span>&gt;</span>x<span class="hljs-tag">&lt;/<span class="hljs-name">name</span>&gt;</span></div>',
    );
  });

  it('carries over no tag but span and no property but the classes', () => {
    const hostile: HastNode = {
      type: 'element',
      tagName: 'img',
      properties: { className: ['x', 'y'], src: 'https://example.invalid/', onError: 'alert(1)', style: 'color:red' },
      children: [{ type: 'text', value: '<b>bold</b>' }],
    };
    expect(renderToStaticMarkup(createElement('div', null, hastToReact(hostile, 0)))).toBe(
      '<div><span class="x y">&lt;b&gt;bold&lt;/b&gt;</span></div>',
    );
  });

  it('highlights YAML too (the seed files)', () => {
    const lines = markup('yaml', '#cloud-config\nusers:\n  - name: egress');
    expect(lines[0]).toContain('class="hljs-comment"');
    expect(lines[1]).toContain('class="hljs-attr"');
    expect(lines).toHaveLength(3);
  });
});

describe('metadataLineRange', () => {
  const lines = (xml: string, r = metadataLineRange(xml)) =>
    r ? xml.split('\n').slice(r.start, r.end + 1) : undefined;

  it('finds the metadata element of a domain', () => {
    const xml = [
      '<domain type="kvm">',
      '  <name>ep-a</name>',
      '  <metadata>',
      '    <instance xmlns="urn:egress-proxies:kvm:v1" version="1">',
      '      <name>a</name>',
      '    </instance>',
      '  </metadata>',
      '  <devices/>',
      '</domain>',
    ].join('\n');
    expect(metadataLineRange(xml)).toEqual({ start: 2, end: 6 });
  });

  it('is undefined without one, and for XML cut off', () => {
    expect(metadataLineRange('<domain type="kvm">\n  <name>ep-a</name>\n  <devices/>\n</domain>')).toBeUndefined();
    expect(metadataLineRange('')).toBeUndefined();
    expect(metadataLineRange('<domain>\n  <metadata>\n    <instance')).toBeUndefined();
    expect(metadataLineRange('<domain>\n  <metadata>\n    <instance/>')).toBeUndefined();
  });

  it('does not care how the children are prefixed', () => {
    const xml =
      '<domain>\n<metadata>\n<egress:instance xmlns:egress="urn:egress-proxies:kvm:v1" xmlns="urn:egress-proxies:kvm:v1">\n<egress:name>a</egress:name>\n</egress:instance>\n</metadata>\n</domain>';
    expect(lines(xml)).toEqual([
      '<metadata>',
      '<egress:instance xmlns:egress="urn:egress-proxies:kvm:v1" xmlns="urn:egress-proxies:kvm:v1">',
      '<egress:name>a</egress:name>',
      '</egress:instance>',
      '</metadata>',
    ]);
  });

  it('skips comments, CDATA, processing instructions and quoted ">"', () => {
    const xml = [
      '<?xml version="1.0"?>',
      '<!-- <metadata> in a comment is not it -->',
      '<domain type="kvm">',
      '  <description><![CDATA[ <metadata> </metadata> ]]></description>',
      '  <title a="x>y">t</title>',
      '  <metadata>',
      '    <!-- </metadata> -->',
      '    <other:x xmlns:other="urn:other"><![CDATA[</metadata>]]></other:x>',
      '  </metadata>',
      '</domain>',
    ].join('\n');
    expect(metadataLineRange(xml)).toEqual({ start: 5, end: 8 });
  });

  it('takes only the root element’s child, and a self-closing one as its one line', () => {
    const nested = '<domain>\n  <devices>\n    <x><metadata>\n</metadata></x>\n  </devices>\n  <metadata/>\n</domain>';
    expect(metadataLineRange(nested)).toEqual({ start: 5, end: 5 });
    expect(
      metadataLineRange('<domain>\n  <devices>\n    <metadata>x</metadata>\n  </devices>\n</domain>'),
    ).toBeUndefined();
    expect(metadataLineRange('<domain><metadata\n  /></domain>')).toEqual({ start: 0, end: 1 });
  });

  it('finds the element in the builders’ real domain XML', () => {
    const config = withDefaults({
      hosts: [{ name: 'local', address: 'local' }],
      machineTypes: { small: { vcpus: 1, memoryMiB: 512 } },
      images: { 'debian-12': { url: 'https://x.example/d.qcow2', sha256: 'ab'.repeat(32) } },
      defaults: { machineType: 'small', image: 'debian-12' },
    });
    const spec = resolveSpec({ name: 'web-1' }, config, config.hosts[0]!, () => ({
      username: 'egress',
      password: 'p',
    }));
    const { domainXml } = renderProxy(spec, {
      domainType: 'qemu',
      basePath: '/b.qcow2',
      createdAt: new Date('2026-12-02T10:00:00Z'),
    });
    const found = lines(domainXml)!;
    expect(found[0]!.trim()).toBe('<metadata>');
    expect(found.at(-1)!.trim()).toBe('</metadata>');
    expect(found.join('\n')).toContain('urn:egress-proxies:kvm:v1');
    expect(found.join('\n')).toContain('<name>web-1</name>');
  });
});
