/** Uploads one text file through POST /api/files over loopback, as a client would, and hands back the stored file. */

export interface UploadedFile {
  id: number;
  file_path: string;
}

export async function uploadFile(server: { baseUrl: string }, token: string, fileName: string, content: string): Promise<UploadedFile> {
  const form = new FormData();
  form.append('file', new Blob([content]), fileName);
  const response = await fetch(`${server.baseUrl}/api/files`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`uploading ${fileName} failed with ${response.status}: ${text}`);
  return JSON.parse(text) as UploadedFile;
}
