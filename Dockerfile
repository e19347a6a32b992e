# A pcflow device worker: a virtual X screen with accessibility, the
# desktop applications, tesseract, and `pcflow worker`.
FROM golang:1.26.8-bookworm AS build
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends libx11-dev libxtst-dev libpng-dev >/dev/null
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN go build -o /pcflow ./cli

FROM debian:12.11-slim
RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      xvfb xauth x11-utils openbox dbus-x11 at-spi2-core libatk-adaptor libgail-common xclip xsel \
      fonts-dejavu-core libx11-6 libxtst6 libpng16-16 mousepad galculator tesseract-ocr tesseract-ocr-eng \
      libreoffice-calc libreoffice-writer libreoffice-impress libreoffice-gtk3 chromium ffmpeg ca-certificates \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /pcflow /usr/local/bin/pcflow
COPY scripts/device-entrypoint.sh /usr/local/bin/device-entrypoint
ENV PCFLOW_STATE=/var/lib/pcflow
ENTRYPOINT ["/usr/local/bin/device-entrypoint"]
