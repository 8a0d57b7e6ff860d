package io.jtick.boot;

import io.jtick.core.query.model.QueryException;
import io.swagger.v3.oas.annotations.media.Schema;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.bind.MethodArgumentNotValidException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;


/**
 * REST errors as {@code {"error": "...", "status": 400}}: a bad request names its problem and
 * never surfaces as a 500. Services throw {@link ApiException} with a status.
 */
@RestControllerAdvice
public class ApiErrors {
    /** An error with an HTTP status and a message meant for the client. */
    public static class ApiException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final HttpStatus status;

        public ApiException(final HttpStatus status, final String message) {
            super(message);
            this.status = status;
        }

        public HttpStatus status() {
            return status;
        }
    }

    /**
     * Every REST error's body.
     *
     * @param error  what went wrong, with {@code [key=value]} context
     * @param status the HTTP status, repeated
     */
    @Schema(name = "Error", description = "Every REST error's body", example = "{\"error\":\"unknown table [table=nope]\",\"status\":400}")
    public record ErrorBody(String error, int status) {
    }

    public static ApiException badRequest(final String message) {
        return new ApiException(HttpStatus.BAD_REQUEST, message);
    }

    @ExceptionHandler(ApiException.class)
    public ResponseEntity<ErrorBody> api(final ApiException e) {
        return body(e.status(), e.getMessage());
    }

    /** A query the engine refused: 400, or 413 when the result is over a limit. */
    @ExceptionHandler(QueryException.class)
    public ResponseEntity<ErrorBody> query(final QueryException e) {
        return body(HttpStatus.valueOf(e.reason().httpStatus()), e.getMessage());
    }

    @ExceptionHandler({IllegalArgumentException.class, HttpMessageNotReadableException.class})
    public ResponseEntity<ErrorBody> bad(final Exception e) {
        final String msg = e instanceof HttpMessageNotReadableException ? "malformed request body: " + rootMessage(e) : e.getMessage();
        return body(HttpStatus.BAD_REQUEST, msg);
    }

    @ExceptionHandler(MethodArgumentNotValidException.class)
    public ResponseEntity<ErrorBody> invalid(final MethodArgumentNotValidException e) {
        final StringBuilder sb = new StringBuilder("invalid request");
        e.getBindingResult().getFieldErrors().forEach(f -> sb.append(" [").append(f.getField()).append(": ")
            .append(f.getDefaultMessage()).append(']'));
        return body(HttpStatus.BAD_REQUEST, sb.toString());
    }

    private static String rootMessage(final Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        final String m = t.getMessage();
        return m == null ? t.getClass().getSimpleName() : m.split("\n")[0];
    }

    private static ResponseEntity<ErrorBody> body(final HttpStatus status, final String message) {
        // JSON whatever the request accepted (a 404 for Accept: text/csv is still a readable error, not a 406)
        return ResponseEntity.status(status).contentType(MediaType.APPLICATION_JSON)
            .body(new ErrorBody(message == null ? status.getReasonPhrase() : message, status.value()));
    }
}
