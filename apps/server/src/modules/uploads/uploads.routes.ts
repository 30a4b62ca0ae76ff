import { API, responseSchemas, servedContentType } from "@daysync/shared";
import contentDisposition from "content-disposition";
import type { FastifyReply, FastifyRequest } from "fastify";
import rangeParser from "range-parser";
import { z } from "zod";
import { type ApiServer, answers } from "../../http/answers.ts";
import { requireAuth } from "../../http/auth.ts";
import { AppError, notFound } from "../../http/errors.ts";
import { SECURITY_HEADERS } from "../../http/security-headers.ts";
import type { FileStorage } from "../../storage/file-storage.ts";
import type { UploadsService } from "./uploads.service.ts";

const fileParams = z.object({ id: z.string().regex(/^[a-f0-9]{32}$/) });

export function uploadsRoutes(app: ApiServer, deps: { uploadsService: UploadsService; storage: FileStorage }) {
  const { uploadsService, storage } = deps;

  // tus sends raw bytes; leave the body unread for its handler.
  app.addContentTypeParser("application/offset+octet-stream", (_request, _payload, done) => done(null));

  app.get(API.uploadLimit, { schema: answers(responseSchemas.uploadLimit) }, async (request) => {
    const auth = requireAuth(request);
    const max_file_size = await uploadsService.limitFor(auth.userId);
    return { max_file_size, label: uploadsService.formatSize(max_file_size) };
  });

  app.get(API.storage, { schema: answers(responseSchemas.storage) }, async (request) => {
    const auth = requireAuth(request);
    return uploadsService.storageOf(auth.userId);
  });

  const tusHandler = async (request: FastifyRequest, reply: FastifyReply) => {
    const auth = requireAuth(request);
    // tus writes the answer itself, past the app's onSend hook: give it the same protective headers here.
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) reply.raw.setHeader(name, value);
    reply.hijack();
    await uploadsService.handle(auth, request.raw, reply.raw);
  };
  // No GET: tus would serve the bytes under the type the client declared. Files are read from /api/files only.
  app.route({ method: ["POST", "OPTIONS"], url: API.uploads, handler: tusHandler });
  app.route({ method: ["HEAD", "PATCH", "DELETE", "OPTIONS"], url: `${API.uploads}/:id`, handler: tusHandler });

  /**
   * Downloads, only for members of the file's space (its owner, or a discussion's members): always as an
   * attachment under the original name (a sealed file as `<message id>.daysync`), with Range support. A malformed id
   * is the same 404 as a missing file.
   */
  app.get("/api/files/:id", { compress: false }, async (request, reply) => {
    const auth = requireAuth(request);
    const id = fileParams.safeParse(request.params).data?.id;
    const row = id ? await uploadsService.liveFile(auth.userId, id) : undefined;
    const size = row && (await storage.size(row.id));
    if (!row || size === undefined) throw notFound("file");

    // A sealed file is opaque bytes to the server, which knows no name for it: the device opens and names it.
    const sealed = row.epoch !== null;
    reply.header("content-type", sealed ? "application/octet-stream" : servedContentType(row.mime));
    reply.header("content-disposition", contentDisposition(sealed ? `${row.message_id}.daysync` : row.filename, { type: "attachment" }));
    reply.header("accept-ranges", "bytes");
    reply.header("cache-control", "private, no-store");

    const header = request.headers.range;
    const ranges = header ? rangeParser(size, header, { combine: true }) : undefined;
    if (ranges === -1) {
      reply.header("content-range", `bytes */${size}`);
      throw new AppError(416, "range_not_satisfiable", "The requested range is outside the file.");
    }
    if (Array.isArray(ranges) && ranges.type === "bytes" && ranges.length === 1 && ranges[0]) {
      const { start, end } = ranges[0];
      reply
        .status(206)
        .header("content-range", `bytes ${start}-${end}/${size}`)
        .header("content-length", end - start + 1);
      return reply.send(storage.read(row.id, { start, end }));
    }
    reply.header("content-length", size);
    return reply.send(storage.read(row.id));
  });
}
