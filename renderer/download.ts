/** Saves text as a file through the browser's download (a link to a blob URL, revoked shortly after). */
export function downloadFile(file: { text: string; fileName: string; mediaType: string }): void {
  const url = URL.createObjectURL(new Blob([file.text], { type: file.mediaType }));
  const a = document.createElement('a');
  a.href = url;
  a.download = file.fileName;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
